// The message list's bookkeeping, without a DOM: the index of a chat's messages (kept in
// order title by title, never re-listed) and where the turn action bars go, worked out from
// the rendered window and the turn it starts in only.
import { MessageIndex } from '../../../src/agent/ui/message-list';
import { placeTurnBars, type ListedMessage } from '../../../src/agent/ui/turn-actions';

const CHAT = 'Chat';

function wiki(entries: Record<string, { seq: number; role: string; chat?: string }>) {
  const store = new Map(
    Object.entries(entries).map(([title, { seq, role, chat }]) => [title, { title, 'agent-chat': chat ?? CHAT, 'agent-seq': String(seq), role }]),
  );
  let reads = 0;
  return {
    store,
    reads: () => reads,
    read: (title: string) => {
      reads++;
      return store.get(title);
    },
  };
}

describe('MessageIndex', () => {
  test('lists the chat messages in seq order, ignoring other chats', () => {
    const w = wiki({ c: { seq: 2, role: 'assistant' }, a: { seq: 0, role: 'user' }, b: { seq: 1, role: 'tool' }, x: { seq: 1, role: 'user', chat: 'Other' } });
    const index = new MessageIndex(CHAT, w.read);
    index.reset(w.store.keys());
    expect(index.all.map((m) => m.title)).toEqual(['a', 'b', 'c']);
  });

  test('an update reads only the touched titles and keeps the order', () => {
    const entries: Record<string, { seq: number; role: string }> = {};
    for (let i = 0; i < 1000; i++) entries[`m${i}`] = { seq: i, role: i % 2 ? 'assistant' : 'user' };
    const w = wiki(entries);
    const index = new MessageIndex(CHAT, w.read);
    index.reset(w.store.keys());
    const before = w.reads();
    w.store.set('new', { title: 'new', 'agent-chat': CHAT, 'agent-seq': '1000', role: 'user' });
    w.store.set('mid', { title: 'mid', 'agent-chat': CHAT, 'agent-seq': '500', role: 'tool' });
    w.store.delete('m3');
    index.update(['new', 'mid', 'm3']);
    expect(w.reads() - before).toBe(3);
    const titles = index.all.map((m) => m.title);
    expect(titles).toHaveLength(1001);
    expect(titles.at(-1)).toBe('new');
    expect(titles.indexOf('mid')).toBe(titles.indexOf('m500') + 1);
    expect(titles).not.toContain('m3');
    const seqs = index.all.map((m) => m.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  });

  test('a message whose seq changes moves; one moved to another chat leaves', () => {
    const w = wiki({ a: { seq: 0, role: 'user' }, b: { seq: 1, role: 'assistant' }, c: { seq: 2, role: 'user' } });
    const index = new MessageIndex(CHAT, w.read);
    index.reset(w.store.keys());
    w.store.set('a', { title: 'a', 'agent-chat': CHAT, 'agent-seq': '5', role: 'user' });
    w.store.set('b', { title: 'b', 'agent-chat': 'Other', 'agent-seq': '1', role: 'assistant' });
    index.update(['a', 'b']);
    expect(index.all.map((m) => m.title)).toEqual(['c', 'a']);
  });
});

const listed = (roles: string): ListedMessage[] =>
  [...roles].map((r, i) => ({ title: `m${i}`, seq: i, role: ({ u: 'user', a: 'assistant', t: 'tool', e: 'error' } as Record<string, string>)[r]! }));

describe('placeTurnBars', () => {
  test('a bar on the last message of each turn that has a reply; Retry only on the ended last turn', () => {
    const all = listed('uatauau');
    const bars = placeTurnBars(all, 0, false);
    expect([...bars.keys()]).toEqual(['m3', 'm5']);
    expect(bars.get('m3')).toEqual({ user: 'm0', last: false, reply: 'm3' });
    expect(bars.get('m5')).toEqual({ user: 'm4', last: false, reply: 'm5' });
    // The last turn is only the user's message: no bar. A turn ending in a tool call has one without Copy.
    const ended = placeTurnBars(listed('uat'), 0, false);
    expect(ended.get('m2')).toEqual({ user: 'm0', last: true, reply: 'm1' });
    expect(placeTurnBars(listed('ut'), 0, false).get('m1')).toEqual({ user: 'm0', last: true, reply: undefined });
    expect(placeTurnBars(listed('ua'), 0, true).get('m1')).toEqual({ user: 'm0', last: false, reply: 'm1' });
  });

  test('the window may start inside a turn: its user message and reply come from before the window', () => {
    const all = listed('uataaua');
    const bars = placeTurnBars(all, 3, false);
    expect([...bars.keys()]).toEqual(['m4', 'm6']);
    expect(bars.get('m4')).toEqual({ user: 'm0', last: false, reply: 'm4' });
    expect(placeTurnBars(listed('uatt'), 3, false).get('m3')).toEqual({ user: 'm0', last: true, reply: 'm1' });
  });

  test('messages before the first user message carry no bar', () => {
    expect(placeTurnBars(listed('aeua'), 0, false).size).toBe(1);
    expect(placeTurnBars([], 0, false).size).toBe(0);
  });

  test('a long chat looks only at the window and the turn it starts in', () => {
    const all = listed('ua'.repeat(5000));
    let reads = 0;
    const spy = all.map(
      (m) =>
        new Proxy(m, {
          get: (target, key) => {
            reads++;
            return target[key as keyof ListedMessage];
          },
        }),
    );
    const bars = placeTurnBars(spy, all.length - 50, false);
    expect(bars.size).toBe(25);
    expect(reads).toBeLessThan(400);
  });
});

// The parts of the <$ai-chat> widget on their own, in a real TiddlyWiki (Node, fake DOM): the
// message list renders a long chat's newest messages first and fills in the rest of its
// window after the frame, in order; a change re-renders only the message it touched; rendered
// replies refresh only when a tiddler they link to changes; the streaming bubble renders at
// most 10 times a second (fake clock) and renders each settled block once.
import { bootWiki, agentLib, type TW } from '../helpers/tw';
import { RenderedTree, type ChatContext } from '../../src/agent/ui/chat-context';
import { FILL_BATCH, FIRST_BATCH, MessageList } from '../../src/agent/ui/message-list';
import type { Clock } from '../../src/agent/clock';
import { HANDOVER_TIMEOUT_MS, StreamView } from '../../src/agent/ui/stream-view';

let $tw: TW;
const CHAT = 'Parts chat';
const LANGUAGE = '$:/plugins/tiddlyagent/agent/language/';
const msg = (seq: number, role: string, text: string) => ({
  title: `$:/ai/messages/${CHAT}/${String(seq).padStart(6, '0')}`,
  'agent-chat': CHAT,
  'agent-seq': String(seq),
  role,
  type: role === 'assistant' ? 'text/vnd.tiddlyagent.reply' : 'text/plain',
  text,
});

beforeAll(async () => {
  const messages = [];
  for (let i = 0; i < 120; i++) messages.push(msg(i, i % 2 ? 'assistant' : 'user', i % 2 ? `Reply ${i} about [[Topic ${i}]]` : `question ${i}`));
  $tw = await bootWiki([{ title: CHAT, agent: '$:/demo/agents/offline-demo', 'agent-status': 'completed' }, ...messages]);
  // The UI modules read TiddlyWiki's utilities from the global, as they do in a page.
  (globalThis as unknown as { $tw: TW }).$tw = $tw;
});

// Let the wiki's queued change events run while the global is still there.
afterAll(() => new Promise((resolve) => setTimeout(resolve, 10)));

function context(calls: { filter: number; wikitext: string[] } = { filter: 0, wikitext: [] }): ChatContext {
  const ctx: ChatContext = {
    chat: CHAT,
    wiki: $tw.wiki,
    document: $tw.fakeDocument,
    browser: false,
    lingo: (key) => $tw.wiki.getTiddlerText(LANGUAGE + key, ''),
    runner: () => agentLib($tw).getRunner(),
    request: (promise) => promise.catch(() => undefined),
    notify: () => undefined,
    navigate: () => undefined,
    followReply: () => undefined,
    filter: (filter, variables) => {
      calls.filter++;
      return $tw.wiki.filterTiddlers(filter, $tw.rootWidget.makeFakeWidgetWithVariables(variables));
    },
    renderTree: (tree, into) => {
      const widget = $tw.wiki.makeWidget({ tree }, { document: $tw.fakeDocument });
      widget.render(into, null);
      return new RenderedTree(widget, tree);
    },
    renderWikitext: (source, into) => {
      calls.wikitext.push(source);
      return ctx.renderTree(agentLib($tw).parseSafeWikitext($tw.wiki, source).tree, into);
    },
  };
  return ctx;
}

type FakeNode = any;
/** A fake-DOM node's children (text nodes included), as an array. */
const kids = (node: unknown): FakeNode[] => (node as { children: FakeNode[] }).children;
const rendered = (list: MessageList): string[] =>
  kids(list.element)
    .map((n) => n.attributes['data-message'])
    .filter(Boolean);

/** Deferred work queued by the list, run when the test says a frame has passed. */
function frames() {
  const queue: (() => void)[] = [];
  return {
    afterFrame: (fn: () => void) => {
      queue.push(fn);
      return () => queue.splice(queue.indexOf(fn), 1);
    },
    next: () => queue.shift()?.(),
    get size() {
      return queue.length;
    },
  };
}

describe('MessageList', () => {
  test('a long chat: the newest messages first, then the rest of the window a batch per frame, in order', () => {
    const f = frames();
    const list = new MessageList(context(), { pageSize: 50, isActive: () => false, afterFrame: f.afterFrame });
    list.sync();
    expect(rendered(list)).toEqual(Array.from({ length: FIRST_BATCH }, (_, i) => msg(110 + i, '', '').title));
    let frame = 0;
    while (f.size) {
      f.next();
      frame++;
      expect(rendered(list)).toHaveLength(Math.min(50, FIRST_BATCH + frame * FILL_BATCH));
    }
    expect(rendered(list)).toEqual(Array.from({ length: 50 }, (_, i) => msg(70 + i, '', '').title));
    expect(list.element.textContent).toContain('Show 70 older messages');
  });

  test('a change re-renders only the message it touched, without listing the chat again', () => {
    const calls = { filter: 0, wikitext: [] as string[] };
    const list = new MessageList(context(calls), { pageSize: 50, isActive: () => false });
    list.sync();
    const before = kids(list.element).slice();
    const title = msg(101, '', '').title;
    $tw.wiki.addTiddler({ ...$tw.wiki.getTiddler(title).fields, text: 'Edited reply' });
    calls.wikitext.length = 0;
    list.sync([title]);
    expect(calls.filter).toBe(1);
    expect(calls.wikitext).toEqual(['Edited reply']);
    const after = kids(list.element).slice();
    expect(after).toHaveLength(before.length);
    after.forEach((node, i) => {
      if (node.attributes['data-message'] === title) expect(node).not.toBe(before[i]);
      else expect(node).toBe(before[i]);
    });
    expect(after.filter((node, i) => node !== before[i])).toHaveLength(1);
  });

  test('a rendered reply refreshes only when a tiddler it links to changes', () => {
    const list = new MessageList(context(), { pageSize: 2, isActive: () => false });
    list.sync();
    const reply = kids(list.element).find((n) => n.attributes['data-message'] === msg(119, '', '').title);
    const link = () => kids(kids(kids(reply)[1])[0])[1];
    const before = link();
    expect(before.attributes.class).toContain('tc-tiddlylink-missing');
    list.refresh({ 'Something else': { modified: true } });
    expect(link()).toBe(before);
    $tw.wiki.addTiddler({ title: 'Topic 119', text: 'now it exists' });
    list.refresh({ 'Topic 119': { modified: true } });
    expect(link().attributes.class).not.toContain('tc-tiddlylink-missing');
  });
});

function fakeClock() {
  let now = 0;
  let id = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const clock: Clock = {
    now: () => now,
    setTimeout: (fn, ms) => {
      timers.set(++id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
  };
  const advance = (ms: number) => {
    const end = now + ms;
    const nextDue = () => [...timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
    for (let due = nextDue(); due; due = nextDue()) {
      timers.delete(due[0]);
      now = due[1].at;
      due[1].fn();
    }
    now = end;
  };
  return { clock, advance };
}

describe('StreamView', () => {
  const paragraph = (i: number) => `''Point ${i}.'' See [[Topic ${i}]] for //this// part.\n\n`;

  test('100 deltas a second render at most 10 times a second; each settled block renders once', () => {
    const calls = { filter: 0, wikitext: [] as string[] };
    const { clock, advance } = fakeClock();
    const view = new StreamView(context(calls), 'mock-model', clock);
    const full = `${Array.from({ length: 6 }, (_, i) => paragraph(i)).join('')}The tail, still streaming`;
    let text = '';
    for (let i = 0; i < full.length; i += 3) {
      text = full.slice(0, i + 3);
      view.update({ text, reasoning: '' });
      advance(10);
    }
    advance(200);
    const seconds = Math.ceil(full.length / 3) / 100;
    const tails = calls.wikitext.filter((s) => !s.endsWith('\n\n'));
    const blocks = calls.wikitext.filter((s) => s.endsWith('\n\n'));
    expect(tails.length).toBeLessThanOrEqual(Math.ceil(seconds * 10) + 1);
    // Every settled paragraph was rendered exactly once, in order, and never again.
    expect(blocks.join('')).toBe(full.slice(0, full.lastIndexOf('\n\n') + 2));
    expect(new Set(blocks).size).toBe(blocks.length);
    expect(view.element.textContent).toContain('The tail, still streaming');
    expect(view.element.textContent).toContain('Point 5.');
    expect(view.element.textContent).toContain('mock-model');
  });

  test('settled blocks keep their DOM while the tail is redone', () => {
    const { clock, advance } = fakeClock();
    const view = new StreamView(context(), undefined, clock);
    view.update({ text: `${paragraph(1)}tail`, reasoning: '' });
    advance(0);
    const body = kids(view.element)[1];
    const settled = kids(body)[0];
    const block = kids(settled)[0];
    const tail = kids(body)[1];
    view.update({ text: `${paragraph(1)}tail grows`, reasoning: 'thinking' });
    advance(100);
    expect(kids(settled)[0]).toBe(block);
    expect(kids(settled)).toHaveLength(1);
    expect(kids(body)[1]).not.toBe(tail);
    expect(kids(body)[1].textContent).toBe('tail grows');
    expect(view.element.textContent).toContain('thinking');
  });

  test('a finished bubble waits for its message view, and goes after a few seconds without one', () => {
    const { clock, advance } = fakeClock();
    const view = new StreamView(context(), undefined, clock);
    let gone = 0;
    view.update({ text: 'all of it', reasoning: '' });
    view.finish('$:/ai/messages/x', () => gone++);
    expect(view.finished).toBe(true);
    expect(view.awaiting).toBe('$:/ai/messages/x');
    advance(HANDOVER_TIMEOUT_MS - 1);
    expect(gone).toBe(0);
    // The render that was waiting still showed the whole reply in its turn.
    expect(view.element.textContent).toContain('all of it');
    advance(1);
    expect(gone).toBe(1);
  });
});

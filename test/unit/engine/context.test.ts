/*\
Context window: CJK-aware token estimates, agent-duration expiry that never leaves orphan
tool calls or results, and trimming to the window (protected sections, whole groups, the
newest user message, the placeholder, the "Current tiddler" placement, usage numbers).
\*/
import {
  estimateMessageTokens,
  estimateTokens,
  fitToWindow,
  placeholderText,
  selectHistory,
  type HistoryEntry,
  type PromptSection,
} from '../../../src/agent/engine/context';
import type { ModelMessage } from '../../../src/agent/providers/types';

const sys = (content: string): ModelMessage => ({ role: 'system', content });
const user = (content: string): ModelMessage => ({ role: 'user', content });
const asst = (content: string, ...ids: string[]): ModelMessage => ({
  role: 'assistant',
  content,
  ...(ids.length ? { toolCalls: ids.map((id) => ({ id, name: 'read-tiddler', args: { title: id } })) } : {}),
});
const tool = (id: string, content: string): ModelMessage => ({ role: 'tool', toolCallId: id, toolName: 'read-tiddler', content });
const tokens = (ms: ModelMessage[]): number => ms.reduce((n, m) => n + estimateMessageTokens(m), 0);

/** Every tool result follows an assistant message that made its call, and every call is answered. */
function expectPairsConsistent(messages: ModelMessage[]): void {
  const called = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) called.add(c.id);
    if (m.role === 'tool') {
      expect(called.has(m.toolCallId)).toBe(true);
      answered.add(m.toolCallId);
    }
  }
  expect([...called].sort()).toEqual([...answered].sort());
}

describe('estimateTokens', () => {
  it('counts CJK characters one token each', () => {
    expect(estimateTokens('你好世界')).toBe(4);
    expect(estimateTokens('こんにちは')).toBe(5);
    expect(estimateTokens('カタカナ')).toBe(4);
    expect(estimateTokens('안녕하세요')).toBe(5);
  });
  it('counts other text at about four characters per token', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('hello world!')).toBe(3);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('a')).toBe(1);
  });
  it('handles mixed text', () => {
    // 4 CJK + "hello " (6 chars -> 2)
    expect(estimateTokens('hello 你好世界')).toBe(6);
    // 2 CJK + full-width comma (1) + "ok" (1)
    expect(estimateTokens('你好，ok')).toBe(4);
    // an emoji is one code point of other text
    expect(estimateTokens('😀😀😀😀')).toBe(1);
  });
});

describe('estimateMessageTokens', () => {
  it('adds a per-message overhead', () => {
    expect(estimateMessageTokens(user(''))).toBe(4);
    expect(estimateMessageTokens(user('hello world!'))).toBe(7);
  });
  it('counts tool-call names and JSON arguments', () => {
    const m: ModelMessage = { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'abcd', args: { a: 1 } }] };
    // overhead 4 + name 1 + '{"a":1}' (7 chars -> 2)
    expect(estimateMessageTokens(m)).toBe(7);
    const noArgs: ModelMessage = { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'abcd', args: undefined }] };
    expect(estimateMessageTokens(noArgs)).toBe(4 + 1 + 1);
  });
  it('counts tool result content', () => {
    expect(estimateMessageTokens(tool('c1', '你好世界'))).toBe(4 + 4 + estimateTokens('read-tiddler'));
  });
});

describe('selectHistory', () => {
  const e = (message: ModelMessage, age: number, duration?: number): HistoryEntry => ({ message, age, duration });

  it('keeps messages without duration and drops expired ones', () => {
    const out = selectHistory([e(user('a'), 5), e(user('b'), 2, 2), e(user('c'), 1, 2), e(user('d'), 0, 0)]);
    expect(out).toEqual([user('a'), user('c')]);
  });
  it('duration 0 is never sent, even this round', () => {
    expect(selectHistory([e(user('x'), 0, 0), e(user('y'), 0)])).toEqual([user('y')]);
  });
  it('an expired tool result takes its call with it, the assistant text stays', () => {
    const out = selectHistory([e(user('q'), 3), e(asst('looking', 'c1'), 2), e(tool('c1', 'big'), 2, 1), e(user('next'), 0)]);
    expect(out).toEqual([user('q'), { role: 'assistant', content: 'looking' }, user('next')]);
    expectPairsConsistent(out);
  });
  it('an expired assistant message takes its results with it', () => {
    const out = selectHistory([e(user('q'), 3), e(asst('', 'c1', 'c2'), 2, 1), e(tool('c1', 'r1'), 2), e(tool('c2', 'r2'), 2), e(user('n'), 0)]);
    expect(out).toEqual([user('q'), user('n')]);
  });
  it('drops only the expired pair of a multi-call message', () => {
    const out = selectHistory([e(asst('', 'c1', 'c2'), 1), e(tool('c1', 'r1'), 1, 1), e(tool('c2', 'r2'), 1)]);
    expect(out).toHaveLength(2);
    const a = out[0] as Extract<ModelMessage, { role: 'assistant' }>;
    expect(a.toolCalls?.map((c) => c.id)).toEqual(['c2']);
    expect(out[1]).toEqual(tool('c2', 'r2'));
    expectPairsConsistent(out);
  });
  it('an assistant message with no calls left and no text is dropped', () => {
    expect(selectHistory([e(asst('  ', 'c1'), 1), e(tool('c1', 'r'), 1, 0), e(user('u'), 0)])).toEqual([user('u')]);
  });
  it('drops orphans: unanswered calls and unmatched results', () => {
    const out = selectHistory([e(tool('zz', 'orphan'), 2), e(user('u'), 1), e(asst('hi', 'c1'), 0)]);
    expect(out).toEqual([user('u'), { role: 'assistant', content: 'hi' }]);
  });
  it('returns kept messages unchanged (same objects) when nothing expires', () => {
    const ms = [user('u'), asst('', 'c1'), tool('c1', 'r'), asst('done')];
    const out = selectHistory(ms.map((m) => e(m, 0)));
    expect(out).toEqual(ms);
    out.forEach((m, i) => {
      expect(m).toBe(ms[i]);
    });
  });
});

describe('fitToWindow', () => {
  const system: PromptSection = { id: 'system', kind: 'system', messages: [sys('You are a helpful wiki agent.')], protected: true };
  const tools: PromptSection = { id: 'tools', kind: 'tools', messages: [sys('Tools: read-tiddler, write-tiddler.')], protected: true };
  const current: PromptSection = {
    id: 'current-tiddler',
    kind: 'transient',
    messages: [sys('Current tiddler "HelloThere":\nWelcome to the wiki.')],
    protected: true,
    placeBeforeLastUser: true,
  };
  const hist = (...messages: ModelMessage[]): PromptSection => ({ id: 'history', kind: 'history', messages });
  const big = 'x'.repeat(400); // 100 tokens

  it('returns everything untouched when it fits', () => {
    const h = hist(user('one'), asst('two'), user('three'));
    const r = fitToWindow([system, tools, h], { contextWindow: 10_000 });
    expect(r.messages).toEqual([...system.messages, ...tools.messages, ...h.messages]);
    expect(r.trimmed).toBe(0);
    expect(r.overflow).toBe(false);
    expect(r.usage).toEqual({
      system: tokens(system.messages),
      tools: tokens(tools.messages),
      transient: 0,
      history: tokens(h.messages),
      user: tokens([user('one'), user('three')]),
      assistant: tokens([asst('two')]),
      toolResults: 0,
      total: tokens(r.messages),
      window: 10_000,
    });
  });

  it('breaks the history down into user messages, replies and tool results (the context meter shows each)', () => {
    const h = hist(user('question'), asst('', 'c1'), tool('c1', big), asst('answer'), user('next'));
    const u = fitToWindow([system, tools, h], { contextWindow: 10_000 }).usage;
    expect(u.user).toBe(tokens([user('question'), user('next')]));
    expect(u.assistant).toBe(tokens([asst('', 'c1'), asst('answer')]));
    expect(u.toolResults).toBe(tokens([tool('c1', big)]));
    expect(u.user! + u.assistant! + u.toolResults!).toBe(u.history);
  });

  it('places the Current tiddler section right before the newest user message', () => {
    const h = hist(user('first'), asst('reply'), user('now'), asst('', 'c1'), tool('c1', 'text'));
    const r = fitToWindow([system, current, tools, h], { contextWindow: 10_000 });
    expect(r.messages).toEqual([
      ...system.messages,
      ...tools.messages,
      user('first'),
      asst('reply'),
      ...current.messages,
      user('now'),
      asst('', 'c1'),
      tool('c1', 'text'),
    ]);
    expect(r.usage.transient).toBe(tokens(current.messages));
    expect(r.usage.total).toBe(tokens(r.messages));
  });

  it('keeps a transient section in place when there is no user message', () => {
    const r = fitToWindow([system, current, hist(asst('hi'))], { contextWindow: 10_000 });
    expect(r.messages).toEqual([...system.messages, ...current.messages, asst('hi')]);
  });

  it('trims oldest groups first and puts one separate placeholder at the start of the history', () => {
    const h = hist(user(`old ${big}`), asst(`old reply ${big}`), user(`mid ${big}`), asst('mid reply'), user('latest'));
    const fixed = tokens([...system.messages, ...h.messages.slice(2)]);
    const r = fitToWindow([system, h], { contextWindow: fixed + 20 });
    expect(r.trimmed).toBe(2);
    expect(r.messages).toEqual([...system.messages, sys(placeholderText(2)), ...h.messages.slice(2)]);
    expect(r.usage.total).toBeLessThanOrEqual(r.usage.window);
    expect(r.usage.total).toBe(tokens(r.messages));
    expect(r.usage.history).toBe(tokens(r.messages.slice(1)));
  });

  it('never splits an assistant tool-call message from its results', () => {
    // Naively removing the two oldest messages (user + assistant call) would fit, but would
    // leave the tool result orphaned; group trimming has to remove the result as well.
    const h = hist(user(`q ${big}`), asst(`calling ${big}`, 'c1', 'c2'), tool('c1', 'r1'), tool('c2', 'r2'), asst('answer'), user('latest'));
    const naiveKeep = tokens(h.messages.slice(2));
    const r = fitToWindow([h], { contextWindow: naiveKeep + estimateMessageTokens(sys(placeholderText(2))) });
    expectPairsConsistent(r.messages);
    expect(r.trimmed).toBe(4);
    expect(r.messages).toEqual([sys(placeholderText(4)), asst('answer'), user('latest')]);
  });

  it('trims tool results that come after the newest user message with their call, oldest first', () => {
    const h = hist(user('task'), asst('', 'c1'), tool('c1', big), asst('', 'c2'), tool('c2', 'small'));
    const r = fitToWindow([system, h], { contextWindow: tokens([...system.messages, ...h.messages]) - 50 });
    expect(r.trimmed).toBe(2);
    expect(r.messages).toEqual([...system.messages, sys(placeholderText(2)), user('task'), asst('', 'c2'), tool('c2', 'small')]);
    expectPairsConsistent(r.messages);
  });

  it('never puts the placeholder text inside a tool message', () => {
    const h = hist(user(big), asst('', 'a'), tool('a', big), user(big), asst('', 'b'), tool('b', 'result b'), user('go'));
    const r = fitToWindow([system, tools, h], { contextWindow: 100 });
    expect(r.trimmed).toBeGreaterThan(0);
    const placeholders = r.messages.filter((m) => m.content.includes('earlier messages were left out'));
    expect(placeholders).toEqual([sys(placeholderText(r.trimmed))]);
    for (const m of r.messages) if (m.role === 'tool') expect(m.content).not.toContain('left out');
    expectPairsConsistent(r.messages);
  });

  it('keeps protected sections and the newest user message even when they exceed the window', () => {
    const huge: PromptSection = { ...current, messages: [sys(`Current tiddler:\n${big.repeat(10)}`)] };
    const h = hist(user('older'), asst('reply'), user(`newest ${big}`));
    const r = fitToWindow([system, tools, huge, h], { contextWindow: 200 });
    expect(r.messages).toEqual([...system.messages, ...tools.messages, sys(placeholderText(2)), ...huge.messages, user(`newest ${big}`)]);
    expect(r.overflow).toBe(true);
    expect(r.usage.total).toBeGreaterThan(r.usage.window);
    expect(r.usage.transient).toBe(tokens(huge.messages));
  });

  it('subtracts reserveOutput from the window', () => {
    const h = hist(user(big), asst(big), user('now'));
    const all = tokens(h.messages);
    expect(fitToWindow([h], { contextWindow: all }).trimmed).toBe(0);
    const r = fitToWindow([h], { contextWindow: all, reserveOutput: 50 });
    expect(r.usage.window).toBe(all - 50);
    expect(r.trimmed).toBeGreaterThan(0);
    expect(r.usage.total).toBeLessThanOrEqual(r.usage.window);
  });

  it('drops unprotected non-history sections only after history trimming was not enough', () => {
    const extra: PromptSection = { id: 'notes', kind: 'transient', messages: [sys(big)] };
    const h = hist(user('a'), asst('b'), user('c'));
    const needed = tokens([...system.messages, sys(placeholderText(2)), user('c')]);
    const r = fitToWindow([system, extra, h], { contextWindow: needed + 15 });
    expect(r.droppedSections).toEqual(['notes']);
    expect(r.messages).toEqual([...system.messages, sys(placeholderText(2)), user('c')]);
    expect(r.usage.transient).toBe(0);
    expect(r.overflow).toBe(false);
  });

  it('usage categories add up to the tokens of the returned messages', () => {
    const h = hist(user(big), asst('', 'c1'), tool('c1', '你好世界'.repeat(30)), user('now 你好'));
    const r = fitToWindow([system, tools, current, h], { contextWindow: 200 });
    const u = r.usage;
    expect(r.trimmed).toBe(3);
    expect(u.system + u.tools + u.transient + u.history).toBe(u.total);
    expect(u.total).toBe(tokens(r.messages));
    expect(u.system).toBe(tokens(system.messages));
    expect(u.tools).toBe(tokens(tools.messages));
    // trimmed counts removed messages: input + placeholder - trimmed = output
    expect(r.messages.length).toBe(1 + 1 + 1 + h.messages.length + 1 - r.trimmed);
  });

  it('merges several history sections at the place of the first one', () => {
    const r = fitToWindow([hist(user('a')), system, { id: 'h2', kind: 'history', messages: [asst('b'), user('c')] }], {
      contextWindow: 10_000,
    });
    expect(r.messages).toEqual([user('a'), asst('b'), user('c'), ...system.messages]);
  });
});

// Compaction (issue 13 item 1) against a real TiddlyWiki with a scripted model: a prompt past
// the threshold makes the model summarize the older turns first; the next request carries the
// summary instead of them, while the system prompt, the Current tiddler and the last two turns
// stay; the originals stay in the wiki, marked. A summary that fails or comes back empty leaves
// the chat as it was. "Compact now" and a retry of the turn that compacted work through the
// runner, and "Show prompt" shows the next request without writing anything.
import type { ModelRequest } from '../../../src/agent/providers/types';
import { manageTodoTool } from '../../../src/agent/tools/manage-todo';
import { WIKI_READ_TOOLS } from '../../../src/agent/tools/wiki-read-tools';
import { bootEngineWiki, disposeRunners, part, reply, scriptedModel, scriptedRunner, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await bootEngineWiki();
});
afterAll(() => disposeRunners());

const OLD = (n: number) => `OLDTURN${n} ${'words about the garden plan '.repeat(60)}`;
const SUMMARY = 'SUMMARY: the user planned a garden; tiddlers [[Garden]] and [[Plan]] were read.';
const text = (request: ModelRequest) => request.messages.map((m) => m.content).join('\n');

/** A chat with four earlier turns of long messages (about 3,600 tokens), in a window where the next prompt passes 40%. */
function longChat(extra: Record<string, string> = {}): string {
  const chat = h.newChat({ 'agent-context-window': '8000', 'agent-compact-at': '40', 'agent-tools': 'wiki-read', ...extra });
  for (let i = 1; i <= 4; i++) {
    h.store.appendMessage(chat, { role: 'user', text: `${OLD(i)} question` });
    h.store.appendMessage(chat, { role: 'assistant', text: `${OLD(i)} answer` });
  }
  h.$tw.wiki.addTiddler({ title: 'Garden', text: 'The current garden tiddler text.' });
  h.store.updateFields(chat, { 'agent-current-tiddler': 'Garden' });
  return chat;
}

test('past the threshold, the older turns are summarized and the next request carries the summary instead', async () => {
  const chat = longChat({ 'agent-tools': 'wiki-read manage-todo' });
  h.$tw.wiki.addTiddler({ title: `$:/ai/todo/${chat}`, 'agent-chat-todo': chat, type: 'text/plain', text: '- [x] Read the plan\n- [ ] Water the beds' });
  const scripted = scriptedModel([[part.text(SUMMARY), part.usage(900, 40), part.finish('stop')], reply('Done.')]);
  const runner = scriptedRunner(h, scripted.model, [...WIKI_READ_TOOLS, manageTodoTool]);
  expect(await runner.submit({ kind: 'send', chat, text: 'And now?' })).toMatchObject({ status: 'completed' });

  // 1. The summary request: the older turns (not the last two: the one before and this one) and the instructions, no tools.
  const [summaryRequest, next] = scripted.requests;
  expect(summaryRequest!.tools).toBeUndefined();
  for (const n of [1, 2, 3]) expect(text(summaryRequest!)).toContain(`OLDTURN${n}`);
  expect(text(summaryRequest!)).not.toContain('OLDTURN4');
  expect(text(summaryRequest!)).not.toContain('And now?');
  expect(summaryRequest!.messages.at(-1)!.content).toMatch(/Summarize everything above/);

  // 2. The next request: the summary instead of the old turns; system prompt, Current tiddler, last turns intact.
  const all = text(next!);
  expect(all).toContain(SUMMARY);
  for (const n of [1, 2, 3]) expect(all).not.toContain(`OLDTURN${n}`);
  expect(all).toContain('OLDTURN4');
  expect(all).toContain('You are a test agent.');
  expect(all).toContain('The current garden tiddler text.');
  expect(all).toContain('- [ ] Water the beds');
  expect(text(summaryRequest!)).not.toContain('Water the beds');
  expect(next!.messages.at(-1)).toMatchObject({ role: 'user', content: 'And now?' });
  expect(all).not.toMatch(/earlier messages were left out/);

  // 3. The wiki: the originals are all there, marked; one summary message with its usage.
  const messages = h.messages(chat);
  const summary = messages.find((m) => m['agent-compaction'] === 'yes')!;
  expect(summary).toMatchObject({ text: SUMMARY, role: 'assistant', 'tokens-in': '900', 'tokens-out': '40' });
  const compacted = messages.filter((m) => m['agent-compacted'] === summary.title);
  expect(compacted.map((m) => (m.text ?? '').slice(0, 8))).toEqual(['OLDTURN1', 'OLDTURN1', 'OLDTURN2', 'OLDTURN2', 'OLDTURN3', 'OLDTURN3']);
  expect(messages.filter((m) => (m.text ?? '').startsWith('OLDTURN'))).toHaveLength(8);
  expect(messages.at(-1)).toMatchObject({ role: 'assistant', text: 'Done.' });
});

test('a retry of the turn that compacted compacts again, with one summary in force', async () => {
  const chat = longChat();
  const scripted = scriptedModel([reply(SUMMARY), reply('First.'), reply(`${SUMMARY} (again)`), reply('Second.')]);
  const runner = scriptedRunner(h, scripted.model, WIKI_READ_TOOLS);
  await runner.submit({ kind: 'send', chat, text: 'And now?' });
  const user = h.messages(chat).find((m) => m.text === 'And now?')!;
  expect(await runner.submit({ kind: 'retry', chat, message: user.title! })).toMatchObject({ status: 'completed' });
  expect(scripted.requests).toHaveLength(4);
  const messages = h.messages(chat);
  const summaries = messages.filter((m) => m['agent-compaction'] === 'yes');
  expect(summaries.map((m) => m.text)).toEqual([`${SUMMARY} (again)`]);
  expect(messages.filter((m) => m['agent-compacted'] === summaries[0]!.title)).toHaveLength(6);
  expect(text(scripted.requests[3]!)).toContain('(again)');
  expect(text(scripted.requests[3]!)).not.toContain('OLDTURN1');
});

test.each([
  [
    'fails',
    [
      part.text('half a summ'),
      { type: 'error', error: Object.assign(new Error('The server broke off.'), { name: 'ProviderError', kind: 'server', retryable: false }) },
    ],
    /failed: The server broke off/,
  ],
  ['comes back empty', [part.finish('stop')], /empty summary/],
  ['is cut off', [part.text('half'), part.finish('length')], /cut off/],
] as const)('a summary that %s leaves the chat as it was, says so, and the turn goes on', async (_what, step, error) => {
  const chat = longChat();
  const before = h.messages(chat);
  const scripted = scriptedModel([step as never, reply('Answered anyway.')]);
  const runner = scriptedRunner(h, scripted.model, WIKI_READ_TOOLS);
  expect(await runner.submit({ kind: 'send', chat, text: 'And now?' })).toMatchObject({ status: 'completed' });
  const after = h.messages(chat);
  // The earlier messages unchanged; the new ones: the user's, an error saying what happened, the reply.
  expect(after.slice(0, before.length)).toEqual(before);
  expect(after.slice(before.length).map((m) => m.role)).toEqual(['user', 'error', 'assistant']);
  expect(after[before.length + 1]!.text).toMatch(error);
  expect(after.some((m) => m['agent-compaction'] || m['agent-compacted'])).toBe(false);
  expect(text(scripted.requests[1]!)).toContain('OLDTURN1');
});

test('"Compact now" summarizes outside a turn; with too few turns it says why and writes nothing', async () => {
  const chat = longChat({ 'agent-compact-at': '0' });
  const scripted = scriptedModel([reply(SUMMARY)]);
  const runner = scriptedRunner(h, scripted.model, WIKI_READ_TOOLS);
  const status = h.status(chat);
  await runner.submit({ kind: 'compact', chat });
  expect(h.status(chat)).toBe(status);
  // Outside a turn the last two turns are the two newest: turns 1 and 2 are compacted.
  expect(h.messages(chat).filter((m) => m['agent-compacted'])).toHaveLength(4);
  const preview = await runner.query({ kind: 'preview', chat });
  const history = preview.sections.find((s) => s.id === 'history')!;
  expect(history.messages[0]!.content).toContain(SUMMARY);
  expect(history.messages.map((m) => m.content).join()).not.toContain('OLDTURN1');

  const short = h.newChat({ 'agent-tools': 'wiki-read' });
  h.store.appendMessage(short, { role: 'user', text: 'hi' });
  h.store.appendMessage(short, { role: 'assistant', text: 'hello' });
  await expect(runner.submit({ kind: 'compact', chat: short })).rejects.toThrow(/Nothing to compact yet/);
  expect(h.messages(short)).toHaveLength(2);
});

test('"Show prompt" is exactly the next request, with tokens per section, and writes nothing', async () => {
  const chat = longChat({ 'agent-compact-at': '0' });
  const scripted = scriptedModel([reply('Answer.')]);
  const runner = scriptedRunner(h, scripted.model, WIKI_READ_TOOLS);
  h.store.appendMessage(chat, { role: 'user', text: 'Pending question' });
  const writes: string[] = [];
  const { addTiddler, deleteTiddler } = h.$tw.wiki;
  h.$tw.wiki.addTiddler = (t: { fields?: { title: string }; title?: string }) => writes.push(t.fields?.title ?? t.title ?? '?');
  h.$tw.wiki.deleteTiddler = (title: string) => writes.push(title);
  const preview = await runner.query({ kind: 'preview', chat }).finally(() => Object.assign(h.$tw.wiki, { addTiddler, deleteTiddler }));
  expect(writes).toEqual([]);
  expect(preview.sections.map((s) => s.id)).toEqual(expect.arrayContaining(['system', 'current-tiddler', 'history', 'tools']));
  for (const section of preview.sections) expect(section.tokens).toBeGreaterThan(0);
  expect(preview.tools.map((t) => t.name)).toEqual(['wiki-read']);
  expect(preview.window).toBe(8000);

  // The turn that follows sends the same messages, in the same order.
  h.store.deleteMessages(chat, [h.messages(chat).at(-1)!.title!]);
  await runner.submit({ kind: 'send', chat, text: 'Pending question' });
  const sent = scripted.requests[0]!.messages.map((m) => `${m.role}: ${m.content}`);
  const shown = preview.sections.filter((s) => s.id !== 'tools').flatMap((s) => s.messages.map((m) => `${m.role}: ${m.content}`));
  expect(new Set(shown)).toEqual(new Set(sent));
});

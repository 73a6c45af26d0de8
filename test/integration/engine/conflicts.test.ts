// Conflicts by content (issue 23): the agent's write lands only on the version of the tiddler
// it last read in the chat (a tool's result, or the Current tiddler section of the prompt that
// made the call), compared by fingerprint, so a user's edit that keeps `modified` (what
// `<$action-setfield $timestamp="no"/>` does) is never overwritten: between the agent's read
// and its write, while the write waits for approval, and after a reload while it waits. The
// model gets the refusal as the tool's result, the chat shows it, and the retry after the
// re-read lands. The versions read live in the messages (`agent-read`), so they survive a reload.
import type { ModelRequest, StreamPart } from '../../../src/agent/providers/types';
import type { ToolDefinition } from '../../../src/agent/tools/tool';
import {
  bootEngineWiki,
  disposeRunner,
  disposeRunners,
  reply,
  scriptedModel,
  scriptedRunner,
  toolCalls,
  toolMessagesOf,
  within,
  type Harness,
} from './harness';

let h: Harness;
let tools: ToolDefinition[];
const M = '20260101000000000';
let n = 0;

beforeAll(async () => {
  h = await bootEngineWiki();
  tools = [...h.lib.WIKI_READ_TOOLS, ...h.lib.WIKI_WRITE_TOOLS];
});
afterEach(() => disposeRunners());

/** A new note the agent will work on. */
function note(text = 'The original words.'): string {
  const title = `Shared note ${++n}`;
  h.$tw.wiki.addTiddler({ title, text, tags: 'Notes', created: M, modified: M });
  return title;
}

/** The user's edit as `<$action-setfield $timestamp="no" …/>` makes it: the fields change, `modified` stays. */
function userEdits(title: string, change: Record<string, string>): void {
  h.$tw.wiki.addTiddler(new h.$tw.Tiddler(h.$tw.wiki.getTiddler(title), change));
  expect(h.fields(title).modified).toBe(M);
}

const resultOf = (chat: string, id: string) => h.messages(chat).find((m) => m.role === 'tool' && m['tool-call-id'] === id)!;
const currentTiddlerOf = (request: ModelRequest) => request.messages.find((m) => m.role === 'system' && m.content.startsWith('Current tiddler'))?.content ?? '';
const reads = (fields: Record<string, string>) => JSON.parse(fields['agent-read'] ?? '{}') as Record<string, string>;
const CONFLICT = 'changed since you read it';

test('between the read and the write (the edit lands while the write is on its way): refused, told, shown; the retry after the re-read lands', async () => {
  const title = note();
  const chat = h.newChat({ 'agent-tools': 'wiki-read wiki-update wiki-edit', 'agent-approval': JSON.stringify({ '*': { mode: 'auto' } }) });
  const userText = "The user's own words.";
  const s = scriptedModel([
    toolCalls(['r1', 'wiki-read', { title }]),
    // Round 2's prompt was built from the version read; the user's edit lands while the reply streams.
    async function* (): AsyncGenerator<StreamPart> {
      userEdits(title, { text: userText });
      yield* toolCalls(['u1', 'wiki-update', { title, modified: M, text: "The agent's words." }]);
    },
    toolCalls(['e1', 'wiki-edit', { title, modified: M, edits: [{ find: userText, replace: `${userText} And the agent's.` }] }]),
    reply('Done.'),
  ]);
  const runner = scriptedRunner(h, s.model, tools);

  expect(await within(runner.submit({ kind: 'send', chat, text: 'Rewrite the note.' }), 'the turn')).toEqual({ status: 'completed' });

  // Refused as a conflict, shown in the chat, and told to the model with the current text beside it.
  expect(resultOf(chat, 'u1')).toMatchObject({ 'tool-status': 'error' });
  expect(resultOf(chat, 'u1').text).toContain(`"${title}" ${CONFLICT}`);
  expect(toolMessagesOf(s.requests[2]!).get('u1')!.content).toContain(CONFLICT);
  expect(currentTiddlerOf(s.requests[2]!)).toContain(userText);
  // The retry, made from the version the model was shown, lands on it: nothing of the user's is lost.
  expect(resultOf(chat, 'e1')).toMatchObject({ 'tool-status': 'ok' });
  expect(h.fields(title).text).toBe(`${userText} And the agent's.`);

  // What was read is in the messages: the read's result, each reply's Current tiddler, the write's result.
  const original = h.lib.fingerprint({ title, text: 'The original words.', tags: 'Notes', created: M, modified: M });
  expect(reads(resultOf(chat, 'r1'))).toEqual({ [title]: original });
  const replies = h.messages(chat).filter((m) => m.role === 'assistant');
  expect(reads(replies[1]!)).toEqual({ [title]: original });
  expect(reads(replies[2]!)).toEqual({ [title]: h.lib.fingerprint({ title, text: userText, tags: 'Notes', created: M, modified: M }) });
  expect(reads(resultOf(chat, 'e1'))).toEqual({ [title]: h.lib.fingerprint(h.fields(title)) });
});

test.each([
  ['its text', { text: 'The user rewrote it.' }],
  ['a tag', { tags: 'Notes Checked' }],
  ['a field', { status: 'reviewed' }],
])("while the write waits for approval, and after a reload, a user's edit of %s that keeps modified is kept; the retry lands on it", async (_what, change) => {
  const title = note();
  const chat = h.newChat({ 'agent-tools': 'wiki-read wiki-update' });
  const agentText = "The agent's words.";
  const update = (id: string): StreamPart[] => toolCalls([id, 'wiki-update', { title, modified: M, text: agentText }]);
  const s = scriptedModel([toolCalls(['r1', 'wiki-read', { title }]), update('u1'), update('u2'), reply('Done.')]);
  const runner = scriptedRunner(h, s.model, tools);
  const pending = () => h.messages(chat).find((m) => m['tool-status'] === 'pending')!;

  expect(await within(runner.submit({ kind: 'send', chat, text: 'Rewrite the note.' }), 'the turn')).toEqual({ status: 'input-required' });
  // The card was planned from the version read.
  expect(JSON.parse(pending()['tool-changes']!)[title].before.text).toBe('The original words.');
  userEdits(title, change);
  const userVersion = h.fields(title);

  // A reload: a new runner over the same wiki, restored from the messages.
  disposeRunner(runner);
  const reloaded = scriptedRunner(h, s.model, tools);
  expect(reloaded.restore()).toEqual([]);
  expect(await within(reloaded.submit({ kind: 'decide', chat, message: pending().title!, choice: 'once' })!, 'the resumed turn')).toEqual({
    status: 'input-required',
  });

  expect(h.fields(title)).toEqual(userVersion);
  expect(resultOf(chat, 'u1')).toMatchObject({ 'tool-status': 'error' });
  expect(resultOf(chat, 'u1').text).toContain(CONFLICT);
  expect(toolMessagesOf(s.requests[2]!).get('u1')!.content).toContain(CONFLICT);

  // The model was shown the user's version (the Current tiddler section): its retry asks again and lands on it.
  for (const [k, v] of Object.entries(change)) expect(currentTiddlerOf(s.requests[2]!)).toContain(k === 'text' ? v : `${k}: ${v}`);
  expect(pending()['tool-call-id']).toBe('u2');
  expect(await within(reloaded.submit({ kind: 'decide', chat, message: pending().title!, choice: 'once' })!, 'the retried write')).toEqual({
    status: 'completed',
  });
  expect(resultOf(chat, 'u2')).toMatchObject({ 'tool-status': 'ok' });
  expect(h.fields(title)).toEqual({ ...userVersion, text: agentText, modified: expect.not.stringMatching(M) });
});

test('a tiddler the agent never read is not written; the refusal shows it as the Current tiddler, and the call made after that lands', async () => {
  const title = note();
  const chat = h.newChat({ 'agent-tools': 'wiki-read wiki-edit', 'agent-approval': JSON.stringify({ '*': { mode: 'auto' } }) });
  const edit = (id: string) => toolCalls([id, 'wiki-edit', { title, modified: M, edits: [{ find: 'original', replace: 'edited' }] }]);
  const s = scriptedModel([edit('e1'), edit('e2'), reply('Done.')]);

  expect(await within(scriptedRunner(h, s.model, tools).submit({ kind: 'send', chat, text: 'Edit the note.' }), 'the turn')).toEqual({ status: 'completed' });

  expect(resultOf(chat, 'e1').text).toContain(`You have not read "${title}" in this chat`);
  expect(currentTiddlerOf(s.requests[1]!)).toContain('The original words.');
  expect(resultOf(chat, 'e2')).toMatchObject({ 'tool-status': 'ok' });
  expect(h.fields(title).text).toBe('The edited words.');
});

test('what another chat read does not count, nor a read in the same reply as the write', async () => {
  const title = note();
  const reader = h.newChat({ 'agent-tools': 'wiki-read' });
  const s1 = scriptedModel([toolCalls(['r1', 'wiki-read', { title }]), reply('Read.')]);
  expect(await within(scriptedRunner(h, s1.model, tools).submit({ kind: 'send', chat: reader, text: 'Read it.' }), 'the reading turn')).toEqual({
    status: 'completed',
  });

  const writer = h.newChat({ 'agent-tools': 'wiki-read wiki-delete', 'agent-approval': JSON.stringify({ '*': { mode: 'auto' } }) });
  // The read and the delete are one reply: the delete was written before the read's result came.
  const s2 = scriptedModel([toolCalls(['r2', 'wiki-read', { title }], ['d1', 'wiki-delete', { title, modified: M }]), reply('Stopped.')]);
  expect(await within(scriptedRunner(h, s2.model, tools).submit({ kind: 'send', chat: writer, text: 'Delete it.' }), 'the writing turn')).toEqual({
    status: 'completed',
  });

  expect(resultOf(writer, 'd1').text).toContain(`You have not read "${title}" in this chat`);
  expect(h.$tw.wiki.tiddlerExists(title)).toBe(true);
});

// Edit before allowing (issue 24): on a write waiting for approval (wiki-create, wiki-update,
// wiki-edit) the user allows their own version of the text. It lands through the same write gate
// and journal as the agent's (Roll back restores the original), the model is told what the user
// changed, and it works after a reload (a new runner over the same messages). A version the gate
// refuses is refused before anything is decided; a decision the gate refuses when the call runs
// lands nothing and tells the model whose text it was. Calls that are not a text (rename,
// delete) cannot be edited.
import { runTurn } from '../../../src/agent/engine/loop';
import type { ToolDefinition } from '../../../src/agent/tools/tool';
import {
  bootEngineWiki,
  disposeRunner,
  disposeRunners,
  engineDeps,
  Events,
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
const PARAGRAPHS = Array.from({ length: 61 }, (_, i) => `Paragraph ${i + 1} of the long note.`);
const LONG = PARAGRAPHS.join('\n\n');
let n = 0;

beforeAll(async () => {
  h = await bootEngineWiki();
  tools = [...h.lib.WIKI_READ_TOOLS, ...h.lib.WIKI_WRITE_TOOLS];
});
afterEach(() => disposeRunners());

function note(text = LONG): string {
  const title = `Edited note ${++n}`;
  h.$tw.wiki.addTiddler({ title, text, tags: 'Notes', created: M, modified: M });
  return title;
}

const chatWith = () => h.newChat({ 'agent-tools': 'wiki-read wiki-create wiki-update wiki-edit wiki-rename wiki-delete' });
const pendingOf = (chat: string) => h.messages(chat).find((m) => m['tool-status'] === 'pending')!;
const resultOf = (chat: string, id: string) => h.messages(chat).find((m) => m.role === 'tool' && m['tool-call-id'] === id)!;
const editLast = (title: string) =>
  toolCalls(['e1', 'wiki-edit', { title, modified: M, edits: [{ find: 'Paragraph 61 of the long note.', replace: "The agent's last line." }] }]);

test("wiki-edit: the user's version lands, is journaled (Roll back restores the original), and the model is told what they changed", async () => {
  const title = note();
  const chat = chatWith();
  const s = scriptedModel([toolCalls(['r1', 'wiki-read', { title }]), editLast(title), reply('Noted.')]);
  const runner = scriptedRunner(h, s.model, tools);
  expect(await within(runner.submit({ kind: 'send', chat, text: 'Change the last line.' }), 'the card')).toEqual({ status: 'input-required' });
  const pending = pendingOf(chat);
  // The card may offer the edit: the engine names the tiddler whose text the user may change.
  expect(pending['approval-edit']).toBe(title);

  const mine = LONG.replace('Paragraph 61 of the long note.', "The user's last line.").replace('Paragraph 3 of', 'Paragraph three of');
  expect(await within(runner.submit({ kind: 'decide', chat, message: pending.title!, choice: 'once', text: mine }), 'the resumed turn')).toEqual({
    status: 'completed',
  });
  expect(h.fields(title).text).toBe(mine);
  expect(resultOf(chat, 'e1')['tool-status']).toBe('ok');
  // The decision's fields go once the call ran (the journal keeps what landed).
  expect(resultOf(chat, 'e1')).not.toHaveProperty('approval-text');
  expect(resultOf(chat, 'e1')).not.toHaveProperty('approval-edit');

  // The model's tool result says the user changed it, and where, against its own proposal.
  const told = toolMessagesOf(s.requests[2]!).get('e1')!.content;
  expect(told).toContain(`Edited "${title}"`);
  expect(told).toContain('The user edited your proposed text before allowing it');
  expect(told).toContain('2 places');
  expect(told).toContain("- The agent's last line.\n+ The user's last line.");
  expect(told).toContain('- Paragraph 3 of the long note.\n+ Paragraph three of the long note.');

  // Journaled like any write of the turn: Roll back puts the original back exactly.
  const user = h.messages(chat).find((m) => m.role === 'user')!.title!;
  const journal = JSON.parse(h.fields(h.lib.journalTitle(chat, user)).text!);
  expect(journal[title].before.text).toBe(LONG);
  expect(journal[title].after.text).toBe(mine);
  expect(await runner.submit({ kind: 'rollback', chat, message: user })).toEqual({ conflicts: [], restored: [title] });
  expect(h.fields(title)).toEqual({ title, text: LONG, tags: 'Notes', created: M, modified: M });
});

test("wiki-create and wiki-update: the user's version lands; an emptied text lands empty", async () => {
  const chat = chatWith();
  const existing = note('Old words.');
  const s = scriptedModel([
    toolCalls(['c1', 'wiki-create', { title: 'Created by the agent', text: "The agent's draft.", tags: ['Drafts'] }]),
    toolCalls(['r1', 'wiki-read', { title: existing }]),
    toolCalls(['u1', 'wiki-update', { title: existing, modified: M, text: "The agent's words." }]),
    reply('Done.'),
  ]);
  const runner = scriptedRunner(h, s.model, tools);
  expect(await within(runner.submit({ kind: 'send', chat, text: 'Write two notes.' }), 'the first card')).toEqual({ status: 'input-required' });
  expect(
    await within(runner.submit({ kind: 'decide', chat, message: pendingOf(chat).title!, choice: 'once', text: "The user's own draft." }), 'the second card'),
  ).toEqual({
    status: 'input-required',
  });
  expect(h.fields('Created by the agent')).toMatchObject({ text: "The user's own draft.", tags: 'Drafts' });
  expect(await within(runner.submit({ kind: 'decide', chat, message: pendingOf(chat).title!, choice: 'once', text: '' }), 'the turn')).toEqual({
    status: 'completed',
  });
  expect(h.fields(existing).text).toBe('');
  expect(toolMessagesOf(s.requests[3]!).get('u1')!.content).toContain("- The agent's words.");
});

test("a version the write gate refuses is refused with its reason before anything is decided; the card still waits and the agent's version can still be allowed", async () => {
  const title = note();
  const chat = chatWith();
  const s = scriptedModel([toolCalls(['r1', 'wiki-read', { title }]), editLast(title), reply('Noted.')]);
  const runner = scriptedRunner(h, s.model, tools);
  await within(runner.submit({ kind: 'send', chat, text: 'Change the last line.' }), 'the card');
  const pending = pendingOf(chat);
  const refused = runner.submit({ kind: 'decide', chat, message: pending.title!, choice: 'once', text: `${LONG}\n\n<script>alert(1)</script>` });
  await expect(refused).rejects.toMatchObject({ name: 'RunnerError', code: 'bad-request', message: expect.stringMatching(/^Refused: .*script/) });
  expect(pendingOf(chat)).toEqual(pending);
  expect(h.fields(title).text).toBe(LONG);
  expect(s.requests).toHaveLength(2);

  expect(await within(runner.submit({ kind: 'decide', chat, message: pending.title!, choice: 'once' }), "the agent's version")).toEqual({
    status: 'completed',
  });
  expect(h.fields(title).text).toBe(LONG.replace('Paragraph 61 of the long note.', "The agent's last line."));
  expect(toolMessagesOf(s.requests[2]!).get('e1')!.content).not.toContain('The user edited');
});

test('a rename or a delete has no text to edit, and a denial carries none', async () => {
  const title = note('Short.');
  const chat = chatWith();
  const s = scriptedModel([toolCalls(['r1', 'wiki-read', { title }]), toolCalls(['d1', 'wiki-delete', { title, modified: M }]), reply('Done.')]);
  const runner = scriptedRunner(h, s.model, tools);
  await within(runner.submit({ kind: 'send', chat, text: 'Delete it.' }), 'the card');
  const pending = pendingOf(chat);
  expect(pending).not.toHaveProperty('approval-edit');
  await expect(runner.submit({ kind: 'decide', chat, message: pending.title!, choice: 'once', text: 'Keep me' })).rejects.toMatchObject({
    code: 'bad-request',
    message: 'The text of this call cannot be edited before allowing it.',
  });
  await expect(runner.submit({ kind: 'decide', chat, message: pending.title!, choice: 'deny', text: 'Keep me' })).rejects.toMatchObject({
    code: 'bad-request',
  });
  expect(pendingOf(chat)).toEqual(pending);
  expect(await within(runner.submit({ kind: 'decide', chat, message: pending.title!, choice: 'deny' }), 'the denial')).toEqual({ status: 'completed' });
  expect(h.fields(title).text).toBe('Short.');
});

test("after a reload while the call waits, the user's version is allowed from the messages alone", async () => {
  const title = note();
  const chat = chatWith();
  const s = scriptedModel([toolCalls(['r1', 'wiki-read', { title }]), editLast(title), reply('Noted.')]);
  const runner = scriptedRunner(h, s.model, tools);
  await within(runner.submit({ kind: 'send', chat, text: 'Change the last line.' }), 'the card');
  disposeRunner(runner);
  const reloaded = scriptedRunner(h, s.model, tools);
  expect(reloaded.restore()).toEqual([]);
  const mine = LONG.replace('Paragraph 61 of the long note.', 'Mine after the reload.');
  expect(await within(reloaded.submit({ kind: 'decide', chat, message: pendingOf(chat).title!, choice: 'once', text: mine }), 'the resumed turn')).toEqual({
    status: 'completed',
  });
  expect(h.fields(title).text).toBe(mine);
});

test("a decided version the gate refuses when the call runs lands nothing, and the model is told it was the user's text", async () => {
  const title = note();
  const chat = chatWith();
  const s = scriptedModel([toolCalls(['r1', 'wiki-read', { title }]), editLast(title), reply('Noted.')]);
  const runner = scriptedRunner(h, s.model, tools);
  await within(runner.submit({ kind: 'send', chat, text: 'Change the last line.' }), 'the card');
  disposeRunner(runner);
  // A decision written with a version the card would have refused (an older page, a changed rule): the call checks it again.
  h.store.updateFields(pendingOf(chat).title!, { approval: 'once', 'approval-text': JSON.stringify('<script>alert(1)</script>') });
  const events = new Events();
  expect(await within(runTurn(engineDeps(h, s.model, tools, events), { chat, signal: new AbortController().signal }), 'the resumed turn')).toEqual({
    status: 'completed',
  });
  expect(h.fields(title).text).toBe(LONG);
  expect(resultOf(chat, 'e1')['tool-status']).toBe('error');
  expect(resultOf(chat, 'e1').text).toMatch(/^Refused: .*script.*This was the user's version of the text/s);
});

// The Current tiddler in every mode (issue 26, seed 002): after a read and after every refused,
// failed or denied write, whatever the approval path (automatic, refused by the pre-check before
// asking, denied by the user), the next request shows the tiddler the call worked on, fresh from
// the wiki. A tiddler too large for the prompt shows a bounded part (its outline and the region
// the model works on, with a note saying so) and the turn goes on. A tiddler a rule keeps from
// the agent never reaches the section through a failed write.
import type { ModelRequest, StreamPart } from '../../../src/agent/providers/types';
import type { ToolDefinition } from '../../../src/agent/tools/tool';
import { estimateMessageTokens, estimateTokens } from '../../../src/agent/engine/context';
import { bootEngineWiki, disposeRunners, reply, scriptedModel, scriptedRunner, toolCalls, toolMessagesOf, within, type Harness } from './harness';

let h: Harness;
let tools: ToolDefinition[];
const M = '20260101000000000';
let n = 0;

beforeAll(async () => {
  h = await bootEngineWiki();
  tools = [...h.lib.WIKI_READ_TOOLS, ...h.lib.WIKI_WRITE_TOOLS];
});
afterEach(() => disposeRunners());

function note(text: string, prefix = 'Note'): string {
  const title = `${prefix} ${++n}`;
  h.$tw.wiki.addTiddler({ title, text, created: M, modified: M });
  return title;
}

const currentTiddlerOf = (request: ModelRequest) => request.messages.find((m) => m.role === 'system' && m.content.startsWith('Current tiddler'))?.content ?? '';
const resultOf = (chat: string, id: string) => h.messages(chat).find((m) => m.role === 'tool' && m['tool-call-id'] === id)!;
const AUTO = JSON.stringify({ '*': { mode: 'auto' } });
const read = (id: string, title: string) => toolCalls([id, 'wiki-read', { title }]);

/** Two notes: the model reads A, then B (B is the Current tiddler), and then works on A. */
function twoNotes() {
  const a = note('The words of A.');
  const b = note('The words of B.');
  return { a, b };
}

describe('a refused or failed write shows its tiddler fresh in the next request', () => {
  test('confirm (the default): refused by the pre-check before asking, for a user edit since the read', async () => {
    const { a, b } = twoNotes();
    const chat = h.newChat({ 'agent-tools': 'wiki-read wiki-edit' });
    const s = scriptedModel([
      read('r1', a),
      read('r2', b),
      // The user changes A while the model writes its call: the pre-check refuses it before asking.
      async function* (): AsyncGenerator<StreamPart> {
        h.$tw.wiki.addTiddler(new h.$tw.Tiddler(h.$tw.wiki.getTiddler(a), { text: 'The user rewrote A.' }));
        yield* toolCalls(['e1', 'wiki-edit', { title: a, modified: M, edits: [{ find: 'words', replace: 'lines' }] }]);
      },
      reply('I will start from the new text.'),
    ]);
    expect(await within(scriptedRunner(h, s.model, tools).submit({ kind: 'send', chat, text: 'Edit A.' }), 'the turn')).toEqual({ status: 'completed' });

    expect(h.messages(chat).some((m) => m['tool-status'] === 'pending')).toBe(false);
    expect(resultOf(chat, 'e1')).toMatchObject({ 'tool-status': 'error' });
    expect(toolMessagesOf(s.requests[3]!).get('e1')!.content).toContain('Current tiddler');
    expect(currentTiddlerOf(s.requests[3]!)).toContain(`"${a}"`);
    expect(currentTiddlerOf(s.requests[3]!)).toContain('The user rewrote A.');
  });

  test('confirm: refused by the pre-check for a snippet that is not there', async () => {
    const { a, b } = twoNotes();
    const chat = h.newChat({ 'agent-tools': 'wiki-read wiki-edit' });
    const s = scriptedModel([
      read('r1', a),
      read('r2', b),
      toolCalls(['e1', 'wiki-edit', { title: a, modified: M, edits: [{ find: 'no such words', replace: 'x' }] }]),
      reply('Done.'),
    ]);
    expect(await within(scriptedRunner(h, s.model, tools).submit({ kind: 'send', chat, text: 'Edit A.' }), 'the turn')).toEqual({ status: 'completed' });

    expect(resultOf(chat, 'e1').text).toContain('the snippet was not found');
    expect(currentTiddlerOf(s.requests[3]!)).toContain('The words of A.');
    expect(currentTiddlerOf(s.requests[3]!)).not.toContain('The words of B.');
  });

  test('confirm, denied by the user: the next request shows the tiddler the denied call worked on', async () => {
    const { a, b } = twoNotes();
    const chat = h.newChat({ 'agent-tools': 'wiki-read wiki-edit' });
    const s = scriptedModel([
      read('r1', a),
      read('r2', b),
      toolCalls(['e1', 'wiki-edit', { title: a, modified: M, edits: [{ find: 'words', replace: 'lines' }] }]),
      reply('Understood.'),
    ]);
    const runner = scriptedRunner(h, s.model, tools);
    expect(await within(runner.submit({ kind: 'send', chat, text: 'Edit A.' }), 'the turn')).toEqual({ status: 'input-required' });
    const pending = h.messages(chat).find((m) => m['tool-status'] === 'pending')!;
    expect(await within(runner.submit({ kind: 'decide', chat, message: pending.title!, choice: 'deny' })!, 'the resumed turn')).toEqual({
      status: 'completed',
    });

    expect(resultOf(chat, 'e1')).toMatchObject({ 'tool-status': 'denied', 'tool-outcome': 'user-denied' });
    expect(h.fields(a).text).toBe('The words of A.');
    expect(currentTiddlerOf(s.requests[3]!)).toContain('The words of A.');
    expect(currentTiddlerOf(s.requests[3]!)).not.toContain('The words of B.');
  });

  test('automatic: a failed write shows its tiddler (the path that already kept the promise)', async () => {
    const { a, b } = twoNotes();
    const chat = h.newChat({ 'agent-tools': 'wiki-read wiki-edit', 'agent-approval': AUTO });
    const s = scriptedModel([
      read('r1', a),
      read('r2', b),
      toolCalls(['e1', 'wiki-edit', { title: a, modified: M, edits: [{ find: 'no such words', replace: 'x' }] }]),
      reply('Done.'),
    ]);
    expect(await within(scriptedRunner(h, s.model, tools).submit({ kind: 'send', chat, text: 'Edit A.' }), 'the turn')).toEqual({ status: 'completed' });
    expect(currentTiddlerOf(s.requests[3]!)).toContain('The words of A.');
  });

  test('a read of a tiddler that is not there makes it the Current tiddler ("does not exist"), not the one read before', async () => {
    const { b } = twoNotes();
    const chat = h.newChat({ 'agent-tools': 'wiki-read' });
    const s = scriptedModel([read('r1', b), read('r2', 'No such note'), reply('Done.')]);
    expect(await within(scriptedRunner(h, s.model, tools).submit({ kind: 'send', chat, text: 'Read.' }), 'the turn')).toEqual({ status: 'completed' });
    expect(currentTiddlerOf(s.requests[2]!)).toContain('"No such note" does not exist');
  });
});

describe('abuse: a failed write is no way around a rule that keeps a tiddler from the agent', () => {
  test.each([
    ['writes automatic', { '*': { mode: 'auto' }, 'wiki-read': { deny: ['^Secret'] } }],
    ['writes confirmed', { 'wiki-read': { deny: ['^Secret'] } }],
  ])('%s: creating over a tiddler the agent may not read does not show it', async (_mode, rules) => {
    const secret = note('The combination is 4711.', 'Secret');
    const chat = h.newChat({ 'agent-tools': 'wiki-read wiki-create wiki-update', 'agent-approval': JSON.stringify(rules) });
    const s = scriptedModel([
      read('r1', secret),
      toolCalls(['c1', 'wiki-create', { title: secret, text: 'x' }]),
      toolCalls(['u1', 'wiki-update', { title: secret, modified: M, text: 'x' }]),
      reply('Done.'),
    ]);
    expect(await within(scriptedRunner(h, s.model, tools).submit({ kind: 'send', chat, text: 'Open the safe.' }), 'the turn')).toEqual({
      status: 'completed',
    });
    expect(resultOf(chat, 'r1')).toMatchObject({ 'tool-status': 'denied', 'tool-outcome': 'rule-denied' });
    for (const request of s.requests) expect(JSON.stringify(request)).not.toContain('4711');
    expect(h.fields(secret).text).toBe('The combination is 4711.');
  });
});

describe('a tiddler too large for the prompt', () => {
  const SECTIONS = 200;
  /** About 200,000 characters: 200 headed sections of ~1,000 characters. */
  function bigNote(): string {
    const text = Array.from(
      { length: SECTIONS },
      (_, i) => `! Section ${i}\nParagraph ${i} begins. ${'Lorem ipsum dolor sit amet. '.repeat(35)}Paragraph ${i} ends.`,
    ).join('\n');
    return note(text, 'Big note');
  }
  const WINDOW = 16_000;

  test('shows its outline and the region the model works on, with a note, within the window; the turn goes on', async () => {
    const big = bigNote();
    const chat = h.newChat({ 'agent-tools': 'wiki-read wiki-edit', 'agent-approval': AUTO, 'agent-context-window': String(WINDOW), 'agent-compact-at': '0' });
    const s = scriptedModel([
      read('r1', big),
      toolCalls(['e1', 'wiki-edit', { title: big, modified: M, edits: [{ find: 'Paragraph 150 ends.', replace: 'Paragraph 150 ends here.' }] }]),
      reply('Done.'),
    ]);
    const runner = scriptedRunner(h, s.model, tools);

    expect(await within(runner.submit({ kind: 'send', chat, text: 'Fix section 150.' }), 'the turn', 20_000)).toEqual({ status: 'completed' });

    expect(h.messages(chat).filter((m) => m.role === 'error')).toEqual([]);
    expect(h.fields(big).text).toContain('Paragraph 150 ends here.');
    // After the read: the note, the whole outline, and the region where the read began.
    const first = currentTiddlerOf(s.requests[1]!);
    expect(first).toContain(`[Only part of "${big}" is shown here`);
    expect(first).toContain('wiki-read');
    expect(first).toMatch(/@0 ! Section 0\n/);
    expect(first).toMatch(/@\d+ ! Section 199\n/);
    expect(first).toContain('Paragraph 0 begins.');
    expect(first).not.toContain('Paragraph 150 begins.');
    // After the edit: the region around the edit.
    const second = currentTiddlerOf(s.requests[2]!);
    expect(second).toContain('Paragraph 150 ends here.');
    expect(second).not.toContain('Paragraph 0 begins.');
    // Within the window: the section and the whole request.
    for (const request of s.requests.slice(1)) {
      const tokens = request.messages.reduce((sum, m) => sum + estimateMessageTokens(m), 0) + estimateTokens(JSON.stringify(request.tools ?? []));
      expect(tokens).toBeLessThanOrEqual(WINDOW);
      expect(estimateTokens(currentTiddlerOf(request))).toBeLessThanOrEqual(WINDOW / 2);
    }
  });

  test('the region follows a read at an offset, and a tiddler that fits is shown whole', async () => {
    const big = bigNote();
    const small = note('A small note.');
    const text = h.fields(big).text!;
    const at = text.indexOf('! Section 120');
    const chat = h.newChat({ 'agent-tools': 'wiki-read', 'agent-context-window': String(WINDOW), 'agent-compact-at': '0' });
    const s = scriptedModel([toolCalls(['r1', 'wiki-read', { title: big, offset: at }]), read('r2', small), reply('Done.')]);
    expect(await within(scriptedRunner(h, s.model, tools).submit({ kind: 'send', chat, text: 'Read on.' }), 'the turn', 20_000)).toEqual({
      status: 'completed',
    });
    const first = currentTiddlerOf(s.requests[1]!);
    expect(first).toContain('Paragraph 120 begins.');
    expect(first).not.toContain('Paragraph 0 begins.');
    // The read itself returned the part from the offset, saying how to read what came before.
    expect(resultOf(chat, 'r1').text).toContain(`[… ${at} earlier characters not shown`);
    expect(currentTiddlerOf(s.requests[2]!)).not.toContain('Only part of');
    expect(currentTiddlerOf(s.requests[2]!)).toContain('A small note.');
  });
});

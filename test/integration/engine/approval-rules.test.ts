// Shortcuts that say what they do (issue 24.3), in the engine and the runner: "Always allow"
// adds the rule its scope names (this tiddler, titles with a prefix, or the whole tool) and
// nothing wider; a call that ran without asking because of a rule records which one on its
// message (`approval-rule`), and revoking removes exactly that rule, so the next such call asks
// again; a turn whose changes stand is deleted only with keepChanges.
import * as z from 'zod/mini';
import { evaluateApproval, parseApprovalConfig } from '../../../src/agent/engine/approval';
import { addScopedRule, patternMeaning, prefixProblem, removeRule, scopedRule, suggestPrefix } from '../../../src/agent/engine/approval-rules';
import { defineTool } from '../../../src/agent/tools/tool';
import { bootEngineWiki, disposeRunners, reply, scriptedModel, scriptedRunner, toolCalls, within, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await bootEngineWiki();
});
afterEach(() => disposeRunners());

describe('evaluateApproval names the rule that let a call run without asking', () => {
  const write = { name: 'wiki-edit', access: 'write' as const };
  const read = { name: 'wiki-read', access: 'read' as const };
  const rules = (json: unknown) => parseApprovalConfig(JSON.stringify(json), 'Some agent');

  test('an allow pattern, as written in agent-approval (not as RegExp.source escapes it), under the key it lives in', () => {
    const own = rules({ 'wiki-edit': { allow: ['^Notes/', '^Drafts/'] } });
    expect(evaluateApproval(own, write, {}, false, ['Notes/a', 'Drafts/b', 'Notes/c']).rule).toEqual({
      kind: 'allow',
      tool: 'wiki-edit',
      patterns: ['^Notes/', '^Drafts/'],
      on: 'titles',
    });
    const any = rules({ '*': { allow: ['^Notes/'] } });
    expect(evaluateApproval(any, write, {}, false, ['Notes/a']).rule).toEqual({ kind: 'allow', tool: '*', patterns: ['^Notes/'], on: 'titles' });
    const args = rules({ 'user-tool': { allow: ['"ok"'] } });
    expect(evaluateApproval(args, { name: 'user-tool', access: 'write' }, { a: 'ok' }).rule).toEqual({
      kind: 'allow',
      tool: 'user-tool',
      patterns: ['"ok"'],
      on: 'arguments',
    });
  });

  test('mode auto (the tool\'s own or "*") and "allow in this chat" are named too', () => {
    expect(evaluateApproval(rules({ 'wiki-edit': { mode: 'auto' } }), write, {}, false, ['x']).rule).toEqual({ kind: 'mode', tool: 'wiki-edit' });
    expect(evaluateApproval(rules({ '*': { mode: 'auto' } }), write, {}, false, ['x']).rule).toEqual({ kind: 'mode', tool: '*' });
    expect(evaluateApproval({}, write, {}, true, ['x']).rule).toEqual({ kind: 'chat', tool: 'wiki-edit' });
  });

  test('no rule is named where the call would not have asked anyway', () => {
    expect(evaluateApproval({}, read, {}, false, ['x'])).toEqual({ decision: 'allow', reason: 'the tool runs without confirmation' });
    expect(evaluateApproval(rules({ 'wiki-read': { mode: 'auto', allow: ['^x$'] } }), read, {}, false, ['x']).rule).toBeUndefined();
    expect(evaluateApproval(rules({ 'wiki-edit': { mode: 'auto', allow: ['^x$'] } }), write, {}, true, ['x']).rule).toBeUndefined();
    expect(evaluateApproval(rules({ 'wiki-edit': { allow: ['^x$'] } }), write, {}, false, ['y']).rule).toBeUndefined(); // it asks
  });
});

describe('the rules a scope writes', () => {
  test('"this tiddler" is the exact titles, escaped and anchored: a title full of regex characters allows only itself', () => {
    const title = 'Plans (2026) [draft] a.b+c?';
    const rule = scopedRule('wiki-edit', { kind: 'tiddler' }, [title, title]);
    expect(rule).toEqual({ 'wiki-edit': { allow: ['^Plans \\(2026\\) \\[draft\\] a\\.b\\+c\\?$'] } });
    const config = parseApprovalConfig(JSON.stringify(rule), 'A');
    const edit = { name: 'wiki-edit', access: 'write' as const };
    expect(evaluateApproval(config, edit, {}, false, [title]).decision).toBe('allow');
    for (const other of ['Plans (2026) [draft] aXb+c?', `${title} more`, `Old ${title}`])
      expect(evaluateApproval(config, edit, {}, false, [other]).decision).toBe('confirm');
    expect(patternMeaning(rule['wiki-edit']!.allow![0]!)).toEqual({ kind: 'title', title });
  });

  test('"tiddlers like it" is a prefix; the whole tool is mode auto; the words come back from the pattern', () => {
    expect(scopedRule('wiki-create', { kind: 'prefix', prefix: 'Notes/' }, ['Notes/a'])).toEqual({ 'wiki-create': { allow: ['^Notes/'] } });
    expect(scopedRule('wiki-create', { kind: 'tool' }, ['Notes/a'])).toEqual({ 'wiki-create': { mode: 'auto' } });
    expect(patternMeaning('^Notes/')).toEqual({ kind: 'prefix', prefix: 'Notes/' });
    expect(patternMeaning('^Drafts/.*\\.md$')).toEqual({ kind: 'regex', source: '^Drafts/.*\\.md$' });
    expect(patternMeaning('Drafts/')).toEqual({ kind: 'regex', source: 'Drafts/' });
  });

  test('the suggested prefix is what the titles share, up to the last "/"; a prefix must cover every title', () => {
    expect(suggestPrefix(['Notes/2026/a', 'Notes/2026/b'])).toBe('Notes/2026/');
    expect(suggestPrefix(['Notes/a', 'Nothing'])).toBe('Not');
    expect(suggestPrefix(['Meeting 1'])).toBe('Meeting 1');
    expect(prefixProblem('notes/', ['Notes/a'])).toBeUndefined(); // patterns are case-insensitive
    expect(prefixProblem('Notes/', ['Notes/a', 'Other'])).toBe('not-matching');
    expect(prefixProblem('  ', ['Notes/a'])).toBe('blank');
    expect(prefixProblem('a\nb', ['a\nb'])).toBe('long');
  });

  test('adding keeps every other rule; a first own allow list starts with the "*" patterns; removing takes out exactly the rule', () => {
    const config = { '*': { allow: ['^Drafts/'], deny: ['^Private/'] }, 'wiki-edit': { mode: 'confirm', deny: ['^Journal$'] } };
    const added = addScopedRule(config, 'wiki-edit', { kind: 'prefix', prefix: 'Notes/' }, ['Notes/a']);
    expect(added).toEqual({
      '*': { allow: ['^Drafts/'], deny: ['^Private/'] },
      'wiki-edit': { mode: 'confirm', deny: ['^Journal$'], allow: ['^Drafts/', '^Notes/'] },
    });
    expect(config['wiki-edit']).toEqual({ mode: 'confirm', deny: ['^Journal$'] }); // not changed in place
    expect(removeRule(added, { kind: 'allow', tool: 'wiki-edit', patterns: ['^Notes/'], on: 'titles' })['wiki-edit']).toEqual({
      mode: 'confirm',
      deny: ['^Journal$'],
      allow: ['^Drafts/'],
    });
    const auto = addScopedRule({}, 'wiki-edit', { kind: 'tool' }, []);
    expect(removeRule(auto, { kind: 'mode', tool: 'wiki-edit' })).toEqual({});
  });
});

// ---------------------------------------------------------------------------------------------
// Through LocalRunner

/** A write tool that says which title it writes (its approval target), and records what it wrote. */
function titledTool() {
  const written: string[] = [];
  const tool = defineTool({
    name: 'put-note',
    description: 'Write a note.',
    parameters: z.object({ title: z.string() }),
    access: 'write',
    targets: ({ title }) => [title],
    execute: ({ title }) => {
      written.push(title);
      return { content: `wrote ${title}` };
    },
  });
  return { tool, written };
}

/** A chat whose model writes the titles it is given, one turn each: `send(title)` runs a turn that calls put-note on it. */
function setup(agentFields: Record<string, string> = { 'agent-approval': JSON.stringify({ 'put-note': { mode: 'confirm', deny: ['^Private/'] } }) }) {
  const chat = h.newChat({ 'agent-tools': 'put-note', ...agentFields });
  const note = titledTool();
  let n = 0;
  const titles: string[] = [];
  // A request that ends with the user's message gets the call, one that ends with its result the answer.
  const s = scriptedModel(
    () =>
      async function* (request) {
        yield* request.messages.at(-1)!.role === 'user' ? toolCalls([`c-${++n}`, 'put-note', { title: titles.shift() }]) : reply('Done.');
      },
  );
  const runner = scriptedRunner(h, s.model, [note.tool]);
  const send = (title: string) => {
    titles.push(title);
    return within(runner.submit({ kind: 'send', chat, text: title }), `the turn writing ${title}`);
  };
  const agent = h.agentOf(chat);
  const approval = () => JSON.parse(h.fields(agent)['agent-approval'] ?? '{}');
  const pending = () => h.messages(chat).filter((m) => m['tool-status'] === 'pending');
  const callOf = (title: string) =>
    h
      .messages(chat)
      .filter((m) => m.role === 'tool' && JSON.parse(m['tool-args'] ?? '{}').title === title)
      .at(-1)!;
  return { chat, agent, runner, send, approval, pending, callOf, ...note };
}

describe('"Always allow" with a scope', () => {
  test('the waiting call records the titles it touches; "always" without a scope, a scope with another choice, or a prefix that does not cover the call is refused and changes nothing', async () => {
    const t = setup();
    expect(await t.send('Notes/a')).toEqual({ status: 'input-required' });
    const [call] = t.pending();
    expect(call!['approval-targets']).toBe('Notes/a');
    const before = h.fields(t.agent)['agent-approval'];

    await expect(t.runner.submit({ kind: 'decide', chat: t.chat, message: call!.title!, choice: 'always' })).rejects.toMatchObject({
      code: 'bad-request',
      message: expect.stringContaining('needs a scope'),
    });
    await expect(t.runner.submit({ kind: 'decide', chat: t.chat, message: call!.title!, choice: 'once', scope: { kind: 'tool' } })).rejects.toMatchObject({
      code: 'bad-request',
    });
    await expect(
      t.runner.submit({ kind: 'decide', chat: t.chat, message: call!.title!, choice: 'always', scope: { kind: 'prefix', prefix: 'Other/' } }),
    ).rejects.toMatchObject({
      code: 'bad-request',
      message: expect.stringContaining('must start with the prefix'),
    });
    await expect(
      t.runner.submit({ kind: 'decide', chat: t.chat, message: call!.title!, choice: 'always', scope: { kind: 'prefix', prefix: '' } }),
    ).rejects.toMatchObject({ code: 'bad-request' });
    await expect(
      t.runner.submit({ kind: 'decide', chat: t.chat, message: call!.title!, choice: 'always', scope: { kind: 'everything' } as never }),
    ).rejects.toMatchObject({ code: 'bad-request' });

    expect(h.fields(t.agent)['agent-approval']).toBe(before);
    expect(t.pending()).toHaveLength(1);
    expect(h.fields(call!.title!).approval).toBeUndefined();
  });

  test('"this tiddler": the rule names the exact title; the next write of it runs without asking and records the rule; another title still asks', async () => {
    const t = setup();
    await t.send('Notes/a');
    expect(
      await within(t.runner.submit({ kind: 'decide', chat: t.chat, message: t.pending()[0]!.title!, choice: 'always', scope: { kind: 'tiddler' } }), 'resumed'),
    ).toEqual({ status: 'completed' });
    expect(t.approval()).toEqual({ 'put-note': { mode: 'confirm', deny: ['^Private/'], allow: ['^Notes/a$'] } });
    expect(t.callOf('Notes/a')).toMatchObject({ approval: 'always', 'tool-status': 'ok' });
    expect(t.callOf('Notes/a')['approval-targets']).toBeUndefined();
    expect(t.callOf('Notes/a')['approval-rule']).toBeUndefined(); // the user allowed this one on its card

    expect(await t.send('Notes/a')).toEqual({ status: 'completed' });
    expect(JSON.parse(t.callOf('Notes/a')['approval-rule']!)).toEqual({
      kind: 'allow',
      tool: 'put-note',
      patterns: ['^Notes/a$'],
      on: 'titles',
      agent: t.agent,
    });
    expect(await t.send('Notes/b')).toEqual({ status: 'input-required' });
    expect(t.written).toEqual(['Notes/a', 'Notes/a']);
  });

  test('"tiddlers like it": titles with the prefix run without asking, others ask', async () => {
    const t = setup();
    await t.send('Notes/a');
    await within(
      t.runner.submit({ kind: 'decide', chat: t.chat, message: t.pending()[0]!.title!, choice: 'always', scope: { kind: 'prefix', prefix: 'Notes/' } }),
      'resumed',
    );
    expect(t.approval()['put-note'].allow).toEqual(['^Notes/']);

    expect(await t.send('Notes/b')).toEqual({ status: 'completed' });
    expect(JSON.parse(t.callOf('Notes/b')['approval-rule']!)).toMatchObject({ kind: 'allow', patterns: ['^Notes/'] });
    expect(await t.send('Other')).toEqual({ status: 'input-required' });
    expect(t.written).toEqual(['Notes/a', 'Notes/b']);
  });

  test('the whole tool: mode auto, recorded as such', async () => {
    const t = setup();
    await t.send('Notes/a');
    await within(t.runner.submit({ kind: 'decide', chat: t.chat, message: t.pending()[0]!.title!, choice: 'always', scope: { kind: 'tool' } }), 'resumed');
    expect(t.approval()['put-note']).toEqual({ mode: 'auto', deny: ['^Private/'] });
    expect(await t.send('Anything')).toEqual({ status: 'completed' });
    expect(JSON.parse(t.callOf('Anything')['approval-rule']!)).toEqual({ kind: 'mode', tool: 'put-note', agent: t.agent });
  });
});

describe('revoking the rule a call names', () => {
  test('removes exactly that rule from the agent; the next such write asks again; a second revoke finds nothing to remove', async () => {
    const t = setup({ 'agent-approval': JSON.stringify({ 'put-note': { allow: ['^Drafts/', '^Notes/'], deny: ['^Private/'] }, other: { mode: 'auto' } }) });
    expect(await t.send('Notes/a')).toEqual({ status: 'completed' });
    const allowed = t.callOf('Notes/a');

    expect(await t.runner.submit({ kind: 'revoke-rule', chat: t.chat, message: allowed.title! })).toEqual({ revoked: true });
    expect(t.approval()).toEqual({ 'put-note': { allow: ['^Drafts/'], deny: ['^Private/'] }, other: { mode: 'auto' } });
    expect(await t.runner.submit({ kind: 'revoke-rule', chat: t.chat, message: allowed.title! })).toEqual({ revoked: false });
    expect(await t.send('Notes/b')).toEqual({ status: 'input-required' });
    expect(t.written).toEqual(['Notes/a']);
  });

  test('"allow in this chat": revoking takes the tool off the chat\'s list', async () => {
    const t = setup();
    await t.send('Notes/a');
    await within(t.runner.submit({ kind: 'decide', chat: t.chat, message: t.pending()[0]!.title!, choice: 'chat' }), 'resumed');
    expect(await t.send('Notes/b')).toEqual({ status: 'completed' });
    expect(JSON.parse(t.callOf('Notes/b')['approval-rule']!)).toEqual({ kind: 'chat', tool: 'put-note' });

    expect(await t.runner.submit({ kind: 'revoke-rule', chat: t.chat, message: t.callOf('Notes/b').title! })).toEqual({ revoked: true });
    expect(h.fields(t.chat)['agent-allowed-tools']).toBeUndefined();
    expect(await t.send('Notes/c')).toEqual({ status: 'input-required' });
  });

  test('a message no rule allowed, or one of another chat, is refused', async () => {
    const t = setup();
    await t.send('Notes/a');
    await within(t.runner.submit({ kind: 'decide', chat: t.chat, message: t.pending()[0]!.title!, choice: 'once' }), 'resumed');
    await expect(t.runner.submit({ kind: 'revoke-rule', chat: t.chat, message: t.callOf('Notes/a').title! })).rejects.toMatchObject({ code: 'conflict' });
    const other = setup();
    await expect(other.runner.submit({ kind: 'revoke-rule', chat: other.chat, message: t.callOf('Notes/a').title! })).rejects.toMatchObject({
      code: 'not-found',
    });
  });
});

describe('Delete turn keeps the way back unless told', () => {
  test('a turn whose changes stand is refused without keepChanges and deleted with it (the change stays); after a rollback, or without changes, it deletes at once', async () => {
    const chat = h.newChat({ 'agent-tools': 'wiki-create', 'agent-approval': JSON.stringify({ 'wiki-create': { mode: 'auto' } }) });
    const wikiTools = [...h.lib.WIKI_WRITE_TOOLS];
    let n = 0;
    const s = scriptedModel(
      () =>
        async function* (request) {
          yield* request.messages.at(-1)!.role === 'user' ? toolCalls([`c${++n}`, 'wiki-create', { title: `Kept ${n}`, text: 'words' }]) : reply('Made it.');
        },
    );
    const runner = scriptedRunner(h, s.model, wikiTools);
    const userOf = (text: string) => h.messages(chat).find((m) => m.role === 'user' && m.text === text)!.title!;
    await within(runner.submit({ kind: 'send', chat, text: 'one' }), 'turn 1');
    await within(runner.submit({ kind: 'send', chat, text: 'two' }), 'turn 2');
    expect(h.$tw.wiki.tiddlerExists('Kept 1') && h.$tw.wiki.tiddlerExists('Kept 2')).toBe(true);

    await expect(runner.submit({ kind: 'delete-turn', chat, message: userOf('one') })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('Kept 1'),
    });
    expect(h.messages(chat)).toHaveLength(8);
    expect(h.$tw.wiki.tiddlerExists(`$:/ai/journal/${chat}/000000`)).toBe(true);

    await runner.submit({ kind: 'delete-turn', chat, message: userOf('one'), keepChanges: true });
    expect(h.messages(chat).map((m) => m.text)).not.toContain('one');
    expect(h.$tw.wiki.getTiddlerText('Kept 1')).toBe('words');
    expect(h.$tw.wiki.tiddlerExists(`$:/ai/journal/${chat}/000000`)).toBe(false);

    await runner.submit({ kind: 'rollback', chat, message: userOf('two') });
    expect(h.$tw.wiki.tiddlerExists('Kept 2')).toBe(false);
    await runner.submit({ kind: 'delete-turn', chat, message: userOf('two') });
    expect(h.messages(chat)).toEqual([]);

    const plain = h.newChat();
    await within(scriptedRunner(h, scriptedModel([reply('Hello.')]).model, []).submit({ kind: 'send', chat: plain, text: 'hi' }), 'a plain turn');
    await scriptedRunner(h, scriptedModel([]).model, []).submit({ kind: 'delete-turn', chat: plain, message: h.messages(plain)[0]!.title! });
    expect(h.messages(plain)).toEqual([]);
  });
});

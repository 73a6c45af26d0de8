// Approvals: every branch of evaluateApproval and parseApprovalConfig, and the end-to-end flow
// through LocalRunner in a real TiddlyWiki: pending card, once / deny / chat / always, expiry,
// (always with a narrower scope, the rule recorded on a call and its revocation: approval-rules.test.ts),
// and a pending approval that survives a reload (a new runner over the same wiki).
import * as z from 'zod/mini';
import { evaluateApproval, parseApprovalConfig } from '../../../src/agent/engine/approval';
import { runTurn } from '../../../src/agent/engine/loop';
import { defineTool, type ToolContext, type ToolDefinition } from '../../../src/agent/tools/tool';
import {
  bootEngineWiki,
  disposeRunner,
  disposeRunners,
  engineDeps,
  Events,
  listen,
  reply,
  scriptedModel,
  scriptedRunner,
  toolCalls,
  toolMessagesOf,
  within,
  type Harness,
} from './harness';

let h: Harness;

beforeAll(async () => {
  h = await bootEngineWiki();
});
afterEach(() => disposeRunners());

describe('evaluateApproval', () => {
  const write = { name: 'wiki-edit', access: 'write' as const };
  const read = { name: 'wiki-read', access: 'read' as const };
  const rules = (json: unknown) => parseApprovalConfig(JSON.stringify(json), 'Some agent');

  test('a deny pattern beats an allow pattern (and everything else)', () => {
    const config = rules({ 'wiki-edit': { mode: 'auto', allow: ['.*'], deny: ['^\\$:/'] } });
    expect(evaluateApproval(config, write, {}, true, ['$:/config/x'])).toEqual({
      decision: 'deny',
      reason: 'denied by the rule /^\\$:\\// (it matches "$:/config/x")',
    });
    expect(evaluateApproval(config, write, {}, false, ['Notes']).decision).toBe('allow');
  });

  test('an allow pattern beats the confirm mode only when it matches every title the call touches', () => {
    const config = rules({ 'wiki-edit': { mode: 'confirm', allow: ['^Drafts/'] } });
    expect(evaluateApproval(config, write, {}, false, ['Drafts/one'])).toEqual({
      decision: 'allow',
      reason: 'allowed by the rule /^Drafts\\//',
      rule: { kind: 'allow', tool: 'wiki-edit', patterns: ['^Drafts/'], on: 'titles' },
    });
    expect(evaluateApproval(config, write, {}, false, ['Drafts/one', 'Diary']).decision).toBe('confirm');
    expect(evaluateApproval(config, write, {}, false, []).decision).toBe('confirm');
  });

  test('the attack of issue 9: text that mentions an allowed title does not approve an edit of another tiddler', () => {
    const config = rules({ 'wiki-edit': { allow: ['Drafts/'] } });
    const args = { title: 'Diary', modified: '', edits: [{ find: 'x', replace: 'see Drafts/ for more' }] };
    expect(evaluateApproval(config, write, args, false, ['Diary']).decision).toBe('confirm');
    expect(evaluateApproval(config, write, { ...args, title: 'Drafts/x' }, false, ['Drafts/x']).decision).toBe('allow');
  });

  test('a deny pattern that matches any one of the titles denies the call', () => {
    const config = rules({ 'wiki-rename': { mode: 'auto', deny: ['^Private/'] } });
    const rename = { name: 'wiki-rename', access: 'write' as const };
    expect(evaluateApproval(config, rename, {}, false, ['Notes', 'Private/diary']).reason).toBe(
      'denied by the rule /^Private\\// (it matches "Private/diary")',
    );
    expect(evaluateApproval(config, rename, {}, false, ['Notes', 'Public']).decision).toBe('allow');
  });

  test('tools without targets are matched on their arguments; one that could not tell its targets is never allowed by a pattern', () => {
    const tool = { name: 'user-tool', access: 'write' as const };
    const config = rules({ 'user-tool': { allow: ['"note":"ok'], deny: ['password'] } });
    expect(evaluateApproval(config, tool, { note: 'ok then' }).decision).toBe('allow');
    expect(evaluateApproval(config, tool, { note: 'my PASSWORD is' }).reason).toBe('denied by the rule /password/ (it matches the arguments)');
    expect(evaluateApproval(config, tool, { note: 'ok then' }, false, null).decision).toBe('confirm');
    expect(evaluateApproval(config, tool, { note: 'password' }, false, null).decision).toBe('deny');
  });

  test('"allow in this chat" beats the confirm mode, but not a deny pattern', () => {
    const config = rules({ 'wiki-edit': { mode: 'confirm', deny: ['secret'] } });
    expect(evaluateApproval(config, write, {}, true, ['a'])).toEqual({
      decision: 'allow',
      reason: 'allowed in this chat by the user',
      rule: { kind: 'chat', tool: 'wiki-edit' },
    });
    expect(evaluateApproval(config, write, {}, true, ['secret']).decision).toBe('deny');
  });

  test('the mode decides when no pattern matches; writes confirm and reads run by default', () => {
    expect(evaluateApproval(rules({ 'wiki-edit': { mode: 'auto' } }), write, {}).decision).toBe('allow');
    expect(evaluateApproval({}, write, {}).decision).toBe('confirm');
  });

  test("the '*' deny patterns apply even to a tool with its own rule", () => {
    const config = rules({ '*': { deny: ['^\\$:/'] }, 'wiki-edit': { mode: 'auto' } });
    expect(evaluateApproval(config, write, {}, false, ['$:/core/ui/PageTemplate']).decision).toBe('deny');
    expect(evaluateApproval(config, write, {}, false, ['Notes']).decision).toBe('allow');
  });

  test('defaults: reads run, a tool may say auto, an empty config is fine', () => {
    expect(evaluateApproval({}, read, {})).toEqual({ decision: 'allow', reason: 'the tool runs without confirmation' });
    expect(evaluateApproval({}, { ...write, defaultMode: 'auto' }, {}).decision).toBe('allow');
    expect(evaluateApproval(parseApprovalConfig(undefined, 'A'), read, {}).decision).toBe('allow');
  });

  test('the "*" rule applies to tools without a rule of their own', () => {
    const config = rules({ '*': { mode: 'confirm', deny: ['forbidden'] }, 'wiki-read': { mode: 'auto' } });
    expect(evaluateApproval(config, { name: 'wiki-search', access: 'read' }, {}, false, ['Notes']).decision).toBe('confirm');
    expect(evaluateApproval(config, { name: 'wiki-search', access: 'read' }, {}, false, ['Notes', 'forbidden things']).decision).toBe('deny');
    expect(evaluateApproval(config, read, {}, false, ['Notes']).decision).toBe('allow');
  });

  test('invalid JSON, a wrong shape or an invalid regex is a clear error naming the agent and the field', () => {
    const error = (json: string) => {
      try {
        parseApprovalConfig(json, 'My agent');
      } catch (e) {
        return e as Error & { tiddler?: string; field?: string };
      }
      throw new Error('no error');
    };
    const bad = error('{"wiki-edit": {mode: "auto"}}');
    expect(bad.message).toMatch(/^Agent definition "My agent": the field "agent-approval" is not valid JSON/);
    expect(bad).toMatchObject({ name: 'ConfigError', tiddler: 'My agent', field: 'agent-approval' });
    expect(error('{"wiki-edit": {"mode": "sometimes"}}').message).toMatch(/"agent-approval" must map tool names to/);
    expect(error('["wiki-edit"]').message).toMatch(/"agent-approval" must map tool names to/);
    const regex = error('{"wiki-edit": {"deny": ["(unclosed"]}}');
    expect(regex.message).toBe('Agent definition "My agent": the field "agent-approval" has an invalid regular expression for "wiki-edit": (unclosed.');
    expect(regex.field).toBe('agent-approval');
  });
});

// ---------------------------------------------------------------------------------------------
// End to end

/** A write tool (confirm by default) that records the titles it wrote. */
function noteTool() {
  const written: string[] = [];
  const tool = defineTool({
    name: 'write-note',
    description: 'Write a note.',
    parameters: z.object({ title: z.string() }),
    access: 'write',
    execute: ({ title }) => {
      written.push(title);
      return { content: `wrote ${title}` };
    },
    preview: ({ title }) => `Will write "${title}".`,
  });
  return { tool, written };
}

/** A chat whose model calls write-note once per user message, then answers. */
function setup(agentFields: Record<string, string> = {}) {
  const chat = h.newChat({ 'agent-tools': 'write-note', ...agentFields });
  const note = noteTool();
  let round = 0;
  // Odd calls: a tool call; even calls: the answer.
  const s = scriptedModel((n) => (n % 2 === 1 ? toolCalls([`w-${++round}`, 'write-note', { title: `Note ${round}` }]) : reply(`Done ${round}.`)));
  const runner = scriptedRunner(h, s.model, [note.tool]);
  const events = listen(runner, chat);
  return { chat, ...note, ...s, runner, events };
}

const pendingOf = (chat: string) => h.messages(chat).filter((m) => m['tool-status'] === 'pending');

describe('the approval flow through LocalRunner', () => {
  test('a confirm call becomes a pending tool message and the chat waits in input-required', async () => {
    const t = setup();

    expect(await t.runner.submit({ kind: 'send', chat: t.chat, text: 'Write a note.' })).toEqual({ status: 'input-required' });

    expect(h.status(t.chat)).toBe('input-required');
    expect(t.written).toEqual([]);
    expect(t.requests).toHaveLength(1);
    const [pending, ...more] = pendingOf(t.chat);
    expect(more).toEqual([]);
    expect(pending).toMatchObject({ role: 'tool', 'tool-name': 'write-note', 'tool-call-id': 'w-1', 'tool-status': 'pending', text: 'Will write "Note 1".' });
    expect(JSON.parse(pending!['tool-args']!)).toEqual({ title: 'Note 1' });
    expect(Number(pending!['approval-expires'])).toBeGreaterThan(Date.now() + 500_000); // default 600 s
    expect(t.events.of('waiting')).toEqual([{ type: 'waiting', chat: t.chat, message: pending!.title, reason: 'approval' }]);
    expect(t.events.statuses()).toEqual(['working', 'input-required']);
    // A decision on something that is not pending is ignored.
    await expect(t.runner.submit({ kind: 'decide', chat: t.chat, message: h.messages(t.chat)[0]!.title!, choice: 'once' })).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(t.runner.submit({ kind: 'decide', chat: 'Some other chat', message: pending!.title!, choice: 'once' })).rejects.toMatchObject({
      code: 'not-found',
    });
  });

  test('"once" runs the call and the turn completes; the next call asks again', async () => {
    const t = setup();
    await t.runner.submit({ kind: 'send', chat: t.chat, text: 'Write a note.' });
    const [pending] = pendingOf(t.chat);

    expect(await within(t.runner.submit({ kind: 'decide', chat: t.chat, message: pending!.title!, choice: 'once' })!, 'the resumed turn')).toEqual({
      status: 'completed',
    });

    expect(t.written).toEqual(['Note 1']);
    const list = h.messages(t.chat);
    expect(list.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(list[2]).toMatchObject({ title: pending!.title, 'tool-status': 'ok', text: 'wrote Note 1', approval: 'once' });
    expect(list[2]!['approval-expires']).toBeUndefined();
    expect(toolMessagesOf(t.requests[1]!).get('w-1')).toEqual({ toolName: 'write-note', content: 'wrote Note 1' });
    expect(t.events.statuses()).toEqual(['working', 'input-required', 'working', 'completed']);

    expect(await t.runner.submit({ kind: 'send', chat: t.chat, text: 'Another.' })).toEqual({ status: 'input-required' });
  });

  test('"deny" does not run the call, and the model is told', async () => {
    const t = setup();
    await t.runner.submit({ kind: 'send', chat: t.chat, text: 'Write a note.' });
    const [pending] = pendingOf(t.chat);

    expect(await within(t.runner.submit({ kind: 'decide', chat: t.chat, message: pending!.title!, choice: 'deny' })!, 'the resumed turn')).toEqual({
      status: 'completed',
    });

    expect(t.written).toEqual([]);
    expect(h.fields(pending!.title!)).toMatchObject({ 'tool-status': 'denied', 'tool-outcome': 'user-denied', approval: 'deny' });
    expect(toolMessagesOf(t.requests[1]!).get('w-1')).toEqual({ toolName: 'write-note', content: 'The user did not allow this call. The user denied it.' });
    expect(h.messages(t.chat).at(-1)).toMatchObject({ role: 'assistant', text: 'Done 1.' });
  });

  test('"chat" runs it, and later calls of that tool in the same chat run without asking; other chats still ask', async () => {
    const t = setup();
    await t.runner.submit({ kind: 'send', chat: t.chat, text: 'Write a note.' });
    const [pending] = pendingOf(t.chat);

    expect(await within(t.runner.submit({ kind: 'decide', chat: t.chat, message: pending!.title!, choice: 'chat' })!, 'the resumed turn')).toEqual({
      status: 'completed',
    });
    expect(h.fields(t.chat)['agent-allowed-tools']).toBe('write-note');

    expect(await within(t.runner.submit({ kind: 'send', chat: t.chat, text: 'Another.' }), 'the second turn')).toEqual({ status: 'completed' });
    expect(t.written).toEqual(['Note 1', 'Note 2']);
    expect(t.events.of('waiting')).toHaveLength(1);
    expect(pendingOf(t.chat)).toEqual([]);

    // A second chat of the same agent has not been allowed anything.
    const other = `${t.chat} (other)`;
    h.$tw.wiki.addTiddler({ title: other, agent: h.agentOf(t.chat), 'agent-status': 'idle' });
    expect(await t.runner.submit({ kind: 'send', chat: other, text: 'Write one here.' })).toEqual({ status: 'input-required' });
  });

  test('"always" for the whole tool sets mode auto for the tool in the agent\'s agent-approval, keeping its other rules', async () => {
    const t = setup({ 'agent-approval': JSON.stringify({ 'write-note': { deny: ['forbidden'] }, other: { mode: 'confirm' } }) });
    await t.runner.submit({ kind: 'send', chat: t.chat, text: 'Write a note.' });
    const [pending] = pendingOf(t.chat);

    expect(
      await within(t.runner.submit({ kind: 'decide', chat: t.chat, message: pending!.title!, choice: 'always', scope: { kind: 'tool' } })!, 'the resumed turn'),
    ).toEqual({ status: 'completed' });

    expect(JSON.parse(h.fields(h.agentOf(t.chat))['agent-approval']!)).toEqual({
      'write-note': { deny: ['forbidden'], mode: 'auto' },
      other: { mode: 'confirm' },
    });
    expect(await within(t.runner.submit({ kind: 'send', chat: t.chat, text: 'Another.' }), 'the second turn')).toEqual({ status: 'completed' });
    expect(t.written).toEqual(['Note 1', 'Note 2']);
  });

  test('with several calls waiting, the turn resumes only once every one is decided', async () => {
    const chat = h.newChat({ 'agent-tools': 'write-note' });
    const note = noteTool();
    const s = scriptedModel([toolCalls(['a', 'write-note', { title: 'A' }], ['b', 'write-note', { title: 'B' }]), reply('One of two.')]);
    const runner = scriptedRunner(h, s.model, [note.tool]);

    expect(await runner.submit({ kind: 'send', chat, text: 'Write two.' })).toEqual({ status: 'input-required' });
    const [a, b] = pendingOf(chat);

    expect(await runner.submit({ kind: 'decide', chat, message: a!.title!, choice: 'deny' })).toEqual({ status: 'input-required' });
    expect(h.status(chat)).toBe('input-required');
    expect(s.requests).toHaveLength(1);
    expect(await within(runner.submit({ kind: 'decide', chat, message: b!.title!, choice: 'once' })!, 'the resumed turn')).toEqual({ status: 'completed' });

    expect(note.written).toEqual(['B']);
    const results = toolMessagesOf(s.requests[1]!);
    expect(results.get('a')!.content).toMatch(/^The user did not allow this call/);
    expect(results.get('b')!.content).toBe('wrote B');
  });

  test('a deny pattern refuses the call without asking, and the model is told why', async () => {
    const t = setup({ 'agent-approval': JSON.stringify({ 'write-note': { deny: ['Note 1'] } }) });

    expect(await within(t.runner.submit({ kind: 'send', chat: t.chat, text: 'Write a note.' }), 'the turn')).toEqual({ status: 'completed' });

    expect(t.written).toEqual([]);
    expect(t.events.of('waiting')).toEqual([]);
    expect(toolMessagesOf(t.requests[1]!).get('w-1')!.content).toBe(
      'The user did not allow this call. Not allowed: denied by the rule /Note 1/ (it matches the arguments).',
    );
    expect(h.messages(t.chat).find((m) => m.role === 'tool')).toMatchObject({ 'tool-status': 'denied', 'tool-outcome': 'rule-denied' });
  });

  test('a tool whose targets function throws does not crash the turn: no allow pattern applies, deny patterns test the arguments', async () => {
    const chat = h.newChat({ 'agent-tools': 'broken-targets', 'agent-approval': JSON.stringify({ 'broken-targets': { allow: ['.*'], deny: ['Private/'] } }) });
    const ran: string[] = [];
    const tool = defineTool({
      name: 'broken-targets',
      description: 'A tool whose targets throw.',
      parameters: z.object({ title: z.string() }),
      access: 'write',
      targets: () => {
        throw new Error('cannot tell');
      },
      execute: ({ title }) => {
        ran.push(title);
        return { content: 'ran' };
      },
    });
    const s = scriptedModel([toolCalls(['a', 'broken-targets', { title: 'Notes' }], ['b', 'broken-targets', { title: 'Private/x' }]), reply('done')]);
    const runner = scriptedRunner(h, s.model, [tool]);

    expect(await within(runner.submit({ kind: 'send', chat, text: 'go' }), 'the turn')).toEqual({ status: 'input-required' });

    expect(ran).toEqual([]);
    expect(pendingOf(chat).map((m) => m['tool-call-id'])).toEqual(['a']);
    const denied = h.messages(chat).find((m) => m['tool-call-id'] === 'b')!;
    expect(denied).toMatchObject({ 'tool-status': 'denied' });
    expect(denied.text).toContain('denied by the rule /Private\\// (it matches the arguments)');
  });

  test('an invalid agent-approval fails the turn with a message naming the field', async () => {
    const chat = h.newChat({ 'agent-tools': 'write-note', 'agent-approval': '{not json' });
    const s = scriptedModel([reply('never asked')]);
    const events = new Events();

    const result = await runTurn(engineDeps(h, s.model, [noteTool().tool], events), { chat, signal: new AbortController().signal, userText: 'Hi' });

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/"agent-approval" is not valid JSON/);
    expect(s.requests).toHaveLength(0);
    expect(h.messages(chat).map((m) => m.role)).toEqual(['user', 'error']);
  });
});

describe('expiry and reload', () => {
  test("an unanswered confirmation is denied by the runner's timer after agent-approval-timeout", async () => {
    const t = setup({ 'agent-approval-timeout': '1' });
    const sent = Date.now();
    expect(await t.runner.submit({ kind: 'send', chat: t.chat, text: 'Write a note.' })).toEqual({ status: 'input-required' });
    const [pending] = pendingOf(t.chat);
    expect(Number(pending!['approval-expires'])).toBeGreaterThanOrEqual(sent + 1000);

    await t.events.status('completed', 5000);

    expect(Date.now()).toBeGreaterThanOrEqual(Number(pending!['approval-expires']));
    expect(t.written).toEqual([]);
    expect(h.fields(pending!.title!)).toMatchObject({
      'tool-status': 'denied',
      'tool-outcome': 'expired',
      text: 'Nobody confirmed it in time, so it was denied.',
    });
    expect(toolMessagesOf(t.requests[1]!).get('w-1')!.content).toBe('The user did not allow this call. Nobody confirmed it in time, so it was denied.');
    expect(h.status(t.chat)).toBe('completed');
  });

  test('after a reload, restore() re-arms the expiry of a waiting confirmation', async () => {
    const t = setup({ 'agent-approval-timeout': '1' });
    expect(await t.runner.submit({ kind: 'send', chat: t.chat, text: 'Write a note.' })).toEqual({ status: 'input-required' });
    disposeRunner(t.runner); // the page goes away with its timers

    const reloaded = scriptedRunner(h, t.model, [t.tool]);
    const events = listen(reloaded, t.chat);
    expect(reloaded.restore()).toEqual([]);
    expect(h.status(t.chat)).toBe('input-required');

    await events.status('completed', 5000);
    expect(t.written).toEqual([]);
    expect(pendingOf(t.chat)).toEqual([]);
    expect(h.messages(t.chat).find((m) => m.role === 'tool')).toMatchObject({ 'tool-status': 'denied' });
  });

  test('a pending approval survives a reload: a new runner restores it and its decision completes the turn', async () => {
    const t = setup();
    expect(await t.runner.submit({ kind: 'send', chat: t.chat, text: 'Write a note.' })).toEqual({ status: 'input-required' });
    const [pending] = pendingOf(t.chat);
    disposeRunner(t.runner);

    const reloaded = scriptedRunner(h, t.model, [t.tool]);
    expect(reloaded.restore()).toEqual([]); // waiting chats are not "interrupted"
    expect(h.status(t.chat)).toBe('input-required');
    expect(pendingOf(t.chat).map((m) => m.title)).toEqual([pending!.title]);
    expect(h.messages(t.chat).some((m) => m.role === 'error')).toBe(false);

    expect(await within(reloaded.submit({ kind: 'decide', chat: t.chat, message: pending!.title!, choice: 'once' })!, 'the resumed turn')).toEqual({
      status: 'completed',
    });

    expect(t.written).toEqual(['Note 1']);
    expect(t.requests).toHaveLength(2);
    expect(toolMessagesOf(t.requests[1]!).get('w-1')!.content).toBe('wrote Note 1');
    expect(h.messages(t.chat).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  test('Stop on a waiting chat cancels it and closes the pending call', async () => {
    const t = setup();
    expect(await t.runner.submit({ kind: 'send', chat: t.chat, text: 'Write a note.' })).toEqual({ status: 'input-required' });
    const [pending] = pendingOf(t.chat);

    t.runner.submit({ kind: 'stop', chat: t.chat });

    expect(h.status(t.chat)).toBe('canceled');
    expect(h.fields(pending!.title!)).toMatchObject({ 'tool-status': 'denied', 'tool-outcome': 'stopped', text: 'The user stopped the turn.' });
    await expect(t.runner.submit({ kind: 'decide', chat: t.chat, message: pending!.title!, choice: 'once' })).rejects.toMatchObject({ code: 'conflict' });
    expect(t.written).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Patterns test what a call touches (issue 9, item 3), with the real wiki tools

describe('patterns match the titles a wiki call reads or writes', () => {
  let wikiTools: ToolDefinition[];
  const M = '20260101000000000';

  beforeAll(() => {
    wikiTools = [...h.lib.WIKI_READ_TOOLS, ...h.lib.WIKI_WRITE_TOOLS];
    const add = (fields: Record<string, string>) => h.$tw.wiki.addTiddler({ modified: M, ...fields });
    add({ title: 'Diary', text: 'Dear diary' });
    add({ title: 'Drafts/x', text: 'A draft' });
    add({ title: 'Journal', text: 'The journal' });
    add({ title: 'Private/notes', tags: 'Journal', text: 'very private words' });
    add({ title: 'Week 1', tags: 'Journal', text: 'week', modified: '20260301000000000' });
    add({ title: 'Day 1', tags: '[[Week 1]]', text: 'day', modified: '20260302000000000' });
    add({ title: 'Index', text: 'The index' });
    add({ title: 'Private/links', text: 'see [[Index]]' });
    add({ title: 'Public links', text: 'see [[Index]]' });
  });

  const toolNamed = (name: string) => wikiTools.find((t) => t.name === name)!;
  /** The targets a tool reports for `args`, through the agent's view as in a turn. */
  const targetsOf = (name: string, args: unknown) => {
    const tool = toolNamed(name);
    return tool.targets!(tool.parameters.parse(args), { wiki: h.port.agentView() } as ToolContext);
  };
  /** The titles a read tool's result shows (its <tiddler-data title="…"> elements). */
  const shownBy = async (name: string, args: unknown) => {
    const tool = toolNamed(name);
    const out = await tool.execute(tool.parameters.parse(args), { wiki: h.port.agentView() } as ToolContext);
    return [...out.content.matchAll(/<tiddler-data title="([^"]*)"/g)].map((m) => m[1]!);
  };

  // "Drafts/" is the rule of the issue: tested against the whole call, it matched the new text.
  test.each(['Drafts/', '^Drafts/'])(
    'the attack of issue 9: with the allow rule %s, an edit of "Diary" whose new text contains "Drafts/" waits for confirmation',
    async (pattern) => {
      const chat = h.newChat({ 'agent-tools': 'wiki-read wiki-edit', 'agent-approval': JSON.stringify({ 'wiki-edit': { allow: [pattern] } }) });
      const args = { title: 'Diary', modified: M, edits: [{ find: 'Dear diary', replace: 'Moved to Drafts/x' }] };
      const s = scriptedModel([toolCalls(['r1', 'wiki-read', { title: 'Diary' }]), toolCalls(['e1', 'wiki-edit', args]), reply('done')]);
      const runner = scriptedRunner(h, s.model, wikiTools);
      const events = listen(runner, chat);

      expect(await within(runner.submit({ kind: 'send', chat, text: 'Tidy my diary.' }), 'the turn')).toEqual({ status: 'input-required' });

      expect(h.status(chat)).toBe('input-required');
      expect(h.$tw.wiki.getTiddlerText('Diary')).toBe('Dear diary');
      const [pending, ...more] = pendingOf(chat);
      expect(more).toEqual([]);
      expect(pending).toMatchObject({ 'tool-name': 'wiki-edit', 'tool-call-id': 'e1', 'tool-status': 'pending' });
      expect(events.of('waiting')).toEqual([{ type: 'waiting', chat, message: pending!.title, reason: 'approval' }]);
      expect(s.requests).toHaveLength(2);
    },
  );

  test('the same rule runs an edit of "Drafts/x" without asking', async () => {
    const chat = h.newChat({ 'agent-tools': 'wiki-read wiki-edit', 'agent-approval': JSON.stringify({ 'wiki-edit': { allow: ['^Drafts/'] } }) });
    const args = { title: 'Drafts/x', modified: M, edits: [{ find: 'A draft', replace: 'A better draft' }] };
    const s = scriptedModel([toolCalls(['r1', 'wiki-read', { title: 'Drafts/x' }]), toolCalls(['e1', 'wiki-edit', args]), reply('done')]);

    expect(await within(scriptedRunner(h, s.model, wikiTools).submit({ kind: 'send', chat, text: 'Improve the draft.' }), 'the turn')).toEqual({
      status: 'completed',
    });

    expect(h.$tw.wiki.getTiddlerText('Drafts/x')).toBe('A better draft');
    expect(h.messages(chat).find((m) => m['tool-call-id'] === 'e1')).toMatchObject({ 'tool-status': 'ok' });
  });

  test("a '*' deny pattern refuses a read whose outline or list would show a matching title, naming it", async () => {
    const chat = h.newChat({ 'agent-tools': 'wiki-toc wiki-backlinks', 'agent-approval': JSON.stringify({ '*': { mode: 'auto', deny: ['^Private/'] } }) });
    const s = scriptedModel([
      toolCalls(
        ['t1', 'wiki-toc', { root: 'Journal' }],
        ['t2', 'wiki-toc', { root: 'Week 1' }],
        ['b1', 'wiki-backlinks', { title: 'Index' }],
        ['b2', 'wiki-backlinks', { title: 'Diary' }],
      ),
      reply('done'),
    ]);

    expect(await within(scriptedRunner(h, s.model, wikiTools).submit({ kind: 'send', chat, text: 'Look around.' }), 'the turn')).toEqual({
      status: 'completed',
    });

    const results = toolMessagesOf(s.requests[1]!);
    expect(results.get('t1')!.content).toBe('The user did not allow this call. Not allowed: denied by the rule /^Private\\// (it matches "Private/notes").');
    expect(results.get('b1')!.content).toBe('The user did not allow this call. Not allowed: denied by the rule /^Private\\// (it matches "Private/links").');
    expect(results.get('t2')!.content).toContain('Day 1');
    expect(results.get('b2')!.content).toBe('No tiddlers link to "Diary".');
    for (const r of results.values()) expect(r.content).not.toContain('very private words');
  });

  test("the read tools' targets are the titles their result shows", async () => {
    expect(targetsOf('wiki-read', { title: 'Diary' })).toEqual(['Diary']);
    expect(targetsOf('wiki-get-errors', { title: 'Diary' })).toEqual(['Diary']);

    expect(targetsOf('wiki-toc', { root: 'Journal' }).sort()).toEqual(['Day 1', 'Journal', 'Private/notes', 'Week 1']);
    expect(targetsOf('wiki-toc', { root: 'Journal', depth: 1 }).sort()).toEqual(['Journal', 'Private/notes', 'Week 1']);
    expect(targetsOf('wiki-toc', { root: 'Nothing tagged' })).toEqual(['Nothing tagged']);

    expect(targetsOf('wiki-backlinks', { title: 'Index' })).toEqual(['Index', ...(await shownBy('wiki-backlinks', { title: 'Index' }))]);
    expect(targetsOf('wiki-backlinks', { title: 'Index', limit: 1 })).toEqual(['Index', 'Private/links']);

    for (const args of [{ filter: '[prefix[Private/]]' }, { filter: '[prefix[Private/]]', offset: 1, limit: 1 }, {}]) {
      expect(targetsOf('wiki-list', args)).toEqual(await shownBy('wiki-list', args));
    }
    expect(targetsOf('wiki-list', { filter: '[prefix[Private/]]' })).toEqual(['Private/links', 'Private/notes']);
    expect(targetsOf('wiki-list', { filter: '[prefix[Private/' })).toEqual([]); // a filter error shows no titles

    for (const args of [{ query: 'Dear diary' }, { query: 'private words' }, { filter: '[tag[Journal]]' }, { filter: '[tag[Journal]]', offset: 1, limit: 1 }]) {
      expect(targetsOf('wiki-search', args)).toEqual(await shownBy('wiki-search', args));
    }
    expect(targetsOf('wiki-search', { query: 'Dear diary' })).toEqual(['Diary']);

    expect(targetsOf('wiki-recent', { limit: 2 })).toEqual(await shownBy('wiki-recent', { limit: 2 }));
    expect(targetsOf('wiki-recent', { limit: 2 })).toHaveLength(2);
  });
});

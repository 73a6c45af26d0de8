// User-defined tools ($:/tags/AI/Tool tiddlers) and the Describe / DataSource prompt section
// (TiddlyWiki issue 9378) in a real booted TiddlyWiki: loading and rejecting definitions,
// running action wikitext with the arguments as variables, validation against the user's
// JSON Schema, the schema the model is sent, approvals through a real LocalRunner turn with a
// scripted model, and the demo wiki's two example tools.
import * as z from 'zod/mini';
import { executeToolCalls } from '../../src/agent/engine/tool-executor';
import type { LanguageModel, ModelRequest, StreamPart } from '../../src/agent/providers/types';
import { journalTitle } from '../../src/agent/store/chat-parts';
import { readJournal } from '../../src/agent/tools/journal';
import type { ToolContext, ToolDefinition } from '../../src/agent/tools/tool';
import { scanUserTools } from '../../src/agent/tools/user-tools';
import { agentLib, bootWiki, type TW } from '../helpers/tw';

const TAG = '$:/tags/AI/Tool';
const PROVIDER = 'User tools provider';
const RESERVED = new Set(['wiki-create', 'wiki-read', 'summary']);
const TURN = '$:/ai/messages/Tools chat/000000';

const GREET_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Who to greet' },
    times: { type: 'integer', minimum: 1, maximum: 5, default: 2 },
    mood: { type: 'string', enum: ['happy', 'grumpy'] },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name'],
};

let $tw: TW;
let lib: ReturnType<typeof agentLib>;
let port: ReturnType<ReturnType<typeof agentLib>['createTiddlyWikiPort']>;

beforeAll(async () => {
  $tw = await bootWiki([
    { title: PROVIDER, tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': 'http://127.0.0.1:9/v1', 'default-model': 'm' },
    { title: 'Tools chat', agent: 'x', 'agent-status': 'idle' },
    // Render-only: computes its result from the variables, writes nothing.
    {
      title: 'Tool/greet',
      tags: TAG,
      name: 'greet',
      description: 'Greet someone.',
      approval: 'auto',
      parameters: JSON.stringify(GREET_SCHEMA),
      text: 'Hello <<name>>, <$text text={{{ [<times>multiply[10]] }}}/> times; mood=<<mood>>; tags=<$text text={{{ [<tags>jsonget[0]] }}}/>',
    },
    // Writes a tiddler from its arguments and returns that tiddler's text.
    {
      title: 'Tool/stamp',
      tags: TAG,
      name: 'stamp',
      description: 'Stamp a note.',
      parameters: '{"type": "object", "properties": {"note": {"type": "string"}, "count": {"type": "number"}}, "required": ["note"]}',
      'result-tiddler': 'Stamped',
      text: '<$action-setfield $tiddler="Stamped" text={{{ [<note>addsuffix[ #]addsuffix<count>] }}} stamped="yes"/>',
    },
    // Uses a global procedure (visible through \import) and has no parameters.
    { title: 'Proc/global', tags: '$:/tags/Global', text: '\\procedure tool-answer() forty-two' },
    { title: 'Tool/answer', tags: TAG, name: 'answer', description: 'The answer.', approval: 'auto', text: 'The answer is <<tool-answer>>.' },
    // Writes a system tiddler: outside the default agent-write-filter.
    {
      title: 'Tool/sneaky',
      tags: TAG,
      name: 'sneaky',
      description: 'Writes where it may not.',
      approval: 'auto',
      text: '<$action-setfield $tiddler="Allowed note" text="ok"/><$action-setfield $tiddler="$:/config/Sneaky" text="hacked"/>',
    },
    // Broken definitions.
    { title: 'Tool/bad-name', tags: TAG, name: 'Bad_Name', description: 'x', text: 'x' },
    { title: 'Tool/no-name', tags: TAG, description: 'x', text: 'x' },
    { title: 'Tool/clash', tags: TAG, name: 'wiki-read', description: 'x', text: 'x' },
    { title: 'Tool/mcp', tags: TAG, name: 'mcp-thing', description: 'x', text: 'x' },
    { title: 'Tool/stamp-again', tags: TAG, name: 'stamp', description: 'x', text: 'x' },
    { title: 'Tool/bad-json', tags: TAG, name: 'bad-json', description: 'x', parameters: '{"type": "object", "properties": ', text: 'x' },
    { title: 'Tool/bad-type', tags: TAG, name: 'bad-type', parameters: '{"type": "object", "properties": {"when": {"type": "date"}}}', text: 'x' },
    {
      title: 'Tool/bad-keyword',
      tags: TAG,
      name: 'bad-keyword',
      parameters: '{"type": "object", "properties": {"x": {"type": "string", "oneOf": []}}}',
      text: 'x',
    },
    { title: 'Tool/bad-required', tags: TAG, name: 'bad-required', parameters: '{"type": "object", "properties": {}, "required": ["ghost"]}', text: 'x' },
    { title: 'Tool/not-object', tags: TAG, name: 'not-object', parameters: '{"type": "string"}', text: 'x' },
    { title: 'Tool/bad-approval', tags: TAG, name: 'bad-approval', approval: 'sometimes', text: 'x' },
    { title: 'Tool/draft', tags: TAG, name: 'drafty', 'draft.of': 'Tool/drafty', text: 'x' },
  ]);
  lib = agentLib($tw);
  port = lib.createTiddlyWikiPort($tw.wiki);
});

const scan = () => scanUserTools(port, RESERVED);
const toolNamed = (name: string): ToolDefinition => {
  const tool = scan().tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no user tool ${name}`);
  return tool;
};
const context = (agent: Record<string, unknown> = {}, signal = new AbortController().signal): ToolContext =>
  lib.createToolContext(port, { chat: 'Tools chat', agent: { title: 'Tools agent', ...agent } as unknown as ToolContext['agent'], signal, turn: TURN });
const run = (name: string, args: unknown, agent: Record<string, unknown> = {}) =>
  executeToolCalls([{ id: 'c1', name, args }], new Map([[name, toolNamed(name)]]), {
    signal: new AbortController().signal,
    contextFor: (signal) => context(agent, signal),
  }).then((r) => r[0]!);
const fields = (title: string) => $tw.wiki.getTiddler(title)?.getFieldStrings() as Record<string, string> | undefined;

describe('loading', () => {
  test('valid tools are found; bad names, clashes and duplicates are reported, not offered', () => {
    const { tools, problems } = scan();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['greet', 'stamp', 'answer', 'sneaky']));
    for (const name of ['Bad_Name', 'wiki-read', 'mcp-thing', 'drafty', '']) expect(names).not.toContain(name);
    expect(names.filter((n) => n === 'stamp')).toHaveLength(1);
    const problem = (title: string) => problems.find((p) => p.title === title)?.error;
    expect(problem('Tool/bad-name')).toBe(
      'User tool "Tool/bad-name": the name "Bad_Name" (field "name") may only use a-z, 0-9 and "-", at most 64 characters.',
    );
    expect(problem('Tool/no-name')).toContain('the field "name" is empty');
    expect(problem('Tool/clash')).toBe('User tool "Tool/clash": the name "wiki-read" (field "name") is taken by a built-in tool; choose another.');
    expect(problem('Tool/mcp')).toContain('taken by a built-in tool');
    expect(problem('Tool/stamp-again')).toBe('User tool "Tool/stamp-again": the name "stamp" (field "name") is already used by the user tool "Tool/stamp".');
    expect(problems.map((p) => p.title)).not.toContain('Tool/draft');
  });

  test('a broken definition with a usable name is offered as unavailable, its problem in the description and in every result', async () => {
    const { problems } = scan();
    const problem = (title: string) => problems.find((p) => p.title === title)?.error ?? '';
    expect(problem('Tool/bad-json')).toMatch(/^User tool "Tool\/bad-json": the field "parameters" is not valid JSON \(.+\)\.$/);
    expect(problem('Tool/bad-type')).toBe(
      'User tool "Tool/bad-type": the field "parameters" at properties.when needs "type", one of string, number, integer, boolean, array, object.',
    );
    expect(problem('Tool/bad-keyword')).toContain('at properties.x uses "oneOf", which is not supported for type string');
    expect(problem('Tool/bad-required')).toContain('has "required" that must list names from "properties" (it is ["ghost"])');
    expect(problem('Tool/not-object')).toContain('must be a JSON Schema of an object');
    expect(problem('Tool/bad-approval')).toBe('User tool "Tool/bad-approval": the field "approval" must be "auto" or "confirm" (it is "sometimes").');

    const unavailable = toolNamed('bad-json');
    expect(unavailable.description).toBe(`Unavailable: ${problem('Tool/bad-json')}`);
    const result = await run('bad-json', {});
    expect(result.status).toBe('error');
    expect(result.content).toContain('is not valid JSON');
  });

  test('access and approval: write access always, confirm by default, auto when the field says so', () => {
    expect(toolNamed('stamp')).toMatchObject({ access: 'write', defaultMode: 'confirm', description: 'Stamp a note.' });
    expect(toolNamed('greet')).toMatchObject({ access: 'write', defaultMode: 'auto' });
  });

  test('the model is sent the schema as the user wrote it; no parameters is an empty object schema', () => {
    const { $schema, ...schema } = z.toJSONSchema(toolNamed('greet').parameters, { io: 'input' }) as Record<string, unknown>;
    expect(schema).toEqual(GREET_SCHEMA);
    expect($schema).toMatch(/json-schema\.org/);
    expect(z.toJSONSchema(toolNamed('answer').parameters, { io: 'input' })).toMatchObject({ type: 'object', properties: {} });
  });
});

describe('running', () => {
  test('a tool runs its actions with the arguments as variables; the result is its result-tiddler', async () => {
    const result = await run('stamp', { note: 'Buy milk', count: 3 });
    expect(result).toMatchObject({ status: 'ok', content: 'Buy milk #3' });
    expect(fields('Stamped')).toMatchObject({ text: 'Buy milk #3', stamped: 'yes' });
    // The write is journaled with the turn, so it can be rolled back.
    const journal = readJournal(port, journalTitle('Tools chat', TURN));
    expect(journal.Stamped).toMatchObject({ before: null, after: { text: 'Buy milk #3', stamped: 'yes' } });

    const again = await run('stamp', { note: 'Sell milk' });
    expect(again.content).toBe('Sell milk #');
    expect(readJournal(port, journalTitle('Tools chat', TURN)).Stamped).toMatchObject({ before: null, after: { text: 'Sell milk #' } });
  });

  test('without result-tiddler the result is the text rendered with the variables (defaults applied, JSON for non-strings)', async () => {
    const result = await run('greet', { name: 'Ada', mood: 'happy', tags: ['first', 'second'] });
    expect(result).toMatchObject({ status: 'ok', content: 'Hello Ada, 20 times; mood=happy; tags=first' });
    expect((await run('greet', { name: 'Bob', times: 4 })).content).toBe('Hello Bob, 40 times; mood=; tags=');
    // Global procedures are visible, and a tool needs no parameters.
    expect((await run('answer', {})).content).toBe('The answer is forty-two.');
  });

  test('wrong arguments are rejected before anything runs, with messages naming the parameter', async () => {
    const before = fields('Stamped');
    const bad = await run('stamp', { note: 7 });
    expect(bad.status).toBe('error');
    expect(bad.content).toBe('Invalid arguments for stamp:\n✖ parameter "note": expected a string, got number 7.');
    expect(fields('Stamped')).toEqual(before);

    const greet = toolNamed('greet').parameters;
    const message = (args: unknown) => {
      const parsed = greet.safeParse(args);
      return parsed.success ? 'ok' : z.prettifyError(parsed.error);
    };
    expect(message({ times: 2.5, mood: 'sad', tags: ['a', 3] })).toBe(
      '✖ missing required parameter "name"; parameter "times": expected an integer, got number 2.5; parameter "mood": must be one of "happy", "grumpy", got "sad"; parameter "tags[1]": expected a string, got number 3.',
    );
    expect(message({ name: 'x', times: 9 })).toBe('✖ parameter "times": must be at most 5, got 9.');
    expect(message('x')).toBe('✖ the arguments: expected an object, got the string "x".');
    expect(message({ name: 'x', extra: true })).toBe('ok');
  });

  test('a write the gate refuses fails the call and none of its changes land', async () => {
    const result = await run('sneaky', {});
    expect(result.status).toBe('error');
    expect(result.content).toContain('sneaky tried to change "Allowed note", "$:/config/Sneaky": Refused: "$:/config/Sneaky" is a system tiddler');
    expect(result.content).toContain('Nothing was changed.');
    expect($tw.wiki.tiddlerExists('$:/config/Sneaky')).toBe(false);
    expect($tw.wiki.tiddlerExists('Allowed note')).toBe(false);
    // Not even an agent whose write filter names it may write configuration.
    const widened = await run('sneaky', {}, { 'agent-write-filter': '[[Allowed note]] [[$:/config/Sneaky]]' });
    expect(widened.status).toBe('error');
    expect($tw.wiki.tiddlerExists('$:/config/Sneaky')).toBe(false);
    // Outside the agent's write filter: refused, naming the filter.
    const outside = await run('sneaky', {}, { 'agent-write-filter': '[prefix[Projects/]]' });
    expect(outside.content).toContain('agent-write-filter: [prefix[Projects/]]');
    expect($tw.wiki.tiddlerExists('Allowed note')).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Through a real turn: the built LocalRunner with a scripted model

function scriptedModel(steps: StreamPart[][]): { model: LanguageModel; requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  const model: LanguageModel = {
    api: 'scripted',
    async *stream(request) {
      requests.push(JSON.parse(JSON.stringify(request)) as ModelRequest);
      const step = steps[requests.length - 1];
      if (!step) throw new Error(`Scripted model: unexpected call #${requests.length}`);
      for (const part of step) yield part;
    },
  };
  return { model, requests };
}
const callTool = (id: string, name: string, args: unknown): StreamPart[] => [
  { type: 'tool-call', index: 0, id, name, args },
  { type: 'finish', reason: 'tool-calls' },
];
const say = (text: string): StreamPart[] => [
  { type: 'text-delta', text },
  { type: 'finish', reason: 'stop' },
];

let chats = 0;
function newChat(agentFields: Record<string, string>): string {
  const n = ++chats;
  $tw.wiki.addTiddler({ title: `UT agent ${n}`, tags: '$:/tags/AI/Agent', 'agent-provider': PROVIDER, text: 'You are a test agent.', ...agentFields });
  $tw.wiki.addTiddler({ title: `UT chat ${n}`, agent: `UT agent ${n}`, 'agent-status': 'idle', text: '' });
  return `UT chat ${n}`;
}
function messages(chat: string): Record<string, string>[] {
  return ($tw.wiki.filterTiddlers(`[field:agent-chat[${chat}]]`) as string[])
    .map((title) => fields(title)!)
    .sort((a, b) => Number(a['agent-seq']) - Number(b['agent-seq']));
}
function runnerWith(model: LanguageModel) {
  const builtin = new Map(lib.WIKI_WRITE_TOOLS.map((t) => [t.name, t] as [string, ToolDefinition]));
  const runner = new lib.LocalRunner({
    wiki: port,
    fetch: () => Promise.reject(new Error('no network')),
    getApiKey: () => undefined,
    keyHint: '',
    tools: builtin,
    createModel: () => model,
  });
  runners.push(runner);
  return runner;
}
const runners: { dispose(): void }[] = [];
afterEach(() => {
  for (const r of runners.splice(0)) r.dispose();
});

describe('in a turn', () => {
  test('a confirm user tool waits for the user (tool-status pending), then runs once allowed', async () => {
    const chat = newChat({ 'agent-tools': 'stamp' });
    const scripted = scriptedModel([callTool('call-1', 'stamp', { note: 'From a turn', count: 1 }), say('Stamped it.')]);
    const runner = runnerWith(scripted.model);

    expect(await runner.submit({ kind: 'send', chat, text: 'Stamp a note' })).toEqual({ status: 'input-required' });
    // The model was offered the user's schema.
    expect(scripted.requests[0]!.tools).toEqual([
      expect.objectContaining({ name: 'stamp', description: 'Stamp a note.', parameters: expect.objectContaining({ required: ['note'] }) }),
    ]);
    const pending = messages(chat).find((m) => m.role === 'tool')!;
    expect(pending).toMatchObject({ 'tool-name': 'stamp', 'tool-status': 'pending' });
    expect(pending.text).toContain('Run the user tool "Tool/stamp"');
    expect(pending.text).toContain('note: From a turn');
    expect($tw.wiki.getTiddlerText('Stamped')).not.toBe('From a turn #1');
    // The card shows what it would change (its actions run in a sandbox, planned by the gate), as a wiki-write card does.
    expect(JSON.parse(pending['tool-changes']!)).toEqual({
      Stamped: { before: expect.anything(), after: expect.objectContaining({ title: 'Stamped', text: 'From a turn #1', stamped: 'yes' }) },
    });
    expect(pending['approval-targets']).toBe('Stamped');

    expect(await runner.submit({ kind: 'decide', chat, message: pending.title!, choice: 'once' })).toEqual({ status: 'completed' });
    expect($tw.wiki.getTiddlerText('Stamped')).toBe('From a turn #1');
    expect(fields(pending.title!)).toMatchObject({ 'tool-status': 'ok', text: 'From a turn #1' });
    expect(messages(chat).at(-1)).toMatchObject({ role: 'assistant', text: 'Stamped it.' });
  });

  test('an auto user tool runs at once; tools are re-read from the wiki at the start of every turn', async () => {
    const chat = newChat({ 'agent-tools': 'greet' });
    const scripted = scriptedModel([
      callTool('call-1', 'greet', { name: 'Ada' }),
      say('Greeted.'),
      callTool('call-2', 'greet', { name: 'Bea' }),
      say('Again.'),
    ]);
    const runner = runnerWith(scripted.model);

    expect(await runner.submit({ kind: 'send', chat, text: 'Greet Ada' })).toEqual({ status: 'completed' });
    expect(messages(chat).find((m) => m.role === 'tool')).toMatchObject({
      'tool-name': 'greet',
      'tool-status': 'ok',
      text: 'Hello Ada, 20 times; mood=; tags=',
    });

    const original = fields('Tool/greet')!;
    $tw.wiki.addTiddler({ ...original, text: 'Hi <<name>>!', description: 'Greet briefly.' });
    try {
      expect(await runner.submit({ kind: 'send', chat, text: 'Greet Bea' })).toEqual({ status: 'completed' });
    } finally {
      $tw.wiki.addTiddler(original);
    }
    expect(scripted.requests[2]!.tools?.[0]?.description).toBe('Greet briefly.');
    expect(
      messages(chat)
        .filter((m) => m.role === 'tool')
        .at(-1),
    ).toMatchObject({ text: 'Hi Bea!' });
  });

  test('an agent listing a user tool that is gone fails with the missing tool named', async () => {
    const chat = newChat({ 'agent-tools': 'no-such-tool' });
    const runner = runnerWith(scriptedModel([]).model);
    const result = await runner.submit({ kind: 'send', chat, text: 'Hi' });
    expect(result.status).toBe('failed');
    expect(result.error).toContain('the tool "no-such-tool" in "agent-tools" does not exist');
  });
});

describe('the demo wiki tools', () => {
  test('word-count counts the words of a tiddler, and says when there is none', async () => {
    const text = $tw.wiki.getTiddlerText('Welcome to TiddlyAgent') as string;
    const words = text.split(/\s+/).filter(Boolean).length;
    expect(words).toBeGreaterThan(10);
    const result = await run('word-count', { title: 'Welcome to TiddlyAgent' });
    expect(result).toMatchObject({ status: 'ok', content: `"Welcome to TiddlyAgent" has ${words} words.` });
    expect((await run('word-count', { title: 'Nothing here' })).content).toBe('There is no tiddler titled "Nothing here".');
    expect(toolNamed('word-count')).toMatchObject({ defaultMode: 'auto' });
  });

  test('add-journal-entry appends dated lines to Journal and returns it', async () => {
    expect(toolNamed('add-journal-entry')).toMatchObject({ defaultMode: 'confirm' });
    const today = $tw.utils.formatDateString(new Date(), 'YYYY-0MM-0DD');
    $tw.wiki.deleteTiddler('Journal');
    const first = await run('add-journal-entry', { entry: 'Planted tomatoes' });
    expect(first).toMatchObject({ status: 'ok', content: `* ${today}: Planted tomatoes` });
    const second = await run('add-journal-entry', { entry: 'Watered the //beans//' });
    expect(second.content).toBe(`* ${today}: Planted tomatoes\n* ${today}: Watered the //beans//`);
    expect(fields('Journal')!.created).toMatch(/^\d{17}$/);
    expect((await run('add-journal-entry', { entry: '' })).content).toBe(
      'Invalid arguments for add-journal-entry:\n✖ parameter "entry": needs at least 1 character.',
    );
  });

  test('the offline demo agent lists both demo tools', () => {
    expect(fields('$:/demo/agents/offline-demo')!['agent-tools']).toMatch(/(^| )word-count( |$)/);
    expect(fields('$:/demo/agents/offline-demo')!['agent-tools']).toMatch(/(^| )add-journal-entry( |$)/);
  });
});

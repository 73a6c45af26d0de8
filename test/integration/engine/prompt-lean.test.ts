// A prompt that stays lean (issue 26 item 3), in a real TiddlyWiki with a scripted model: a
// bulky tool result gets an `agent-duration` from its tool's default as it is written, and
// after that many rounds the request carries a one-line stub in its place (still paired with
// the call), which "Show prompt" marks as expired; an agent's `agent-result-rounds` changes the
// rounds per tool (or keeps a result always); a small result never expires; a bad field is
// named in the chat. The model's requests are the ones it really got.
import type { ModelRequest } from '../../../src/agent/providers/types';
import { WIKI_READ_TOOLS } from '../../../src/agent/tools/wiki-read-tools';
import type { ChatContext } from '../../../src/agent/ui/chat-context';
import { PromptTools } from '../../../src/agent/ui/prompt-preview';
import { findAll } from '../../helpers/tw';
import { bootEngineWiki, disposeRunners, reply, scriptedModel, scriptedRunner, toolCalls, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await bootEngineWiki();
  // Three notes whose full text makes a search result of about 3,600 characters.
  for (const n of [1, 2, 3]) h.$tw.wiki.addTiddler({ title: `Orchard note ${n}`, text: `BULKYTEXT${n} ${'apple trees need pruning in winter. '.repeat(30)}` });
  h.$tw.wiki.addTiddler({ title: 'Small note', text: 'Plums.' });
});
afterAll(() => disposeRunners());

const SEARCH = { query: 'apple pruning', fullText: true };
const toolContent = (request: ModelRequest) => request.messages.filter((m) => m.role === 'tool').map((m) => m.content);

/** A turn: the model searches, then reads the small note in each of `rounds` more rounds, then answers. */
async function run(agentFields: Record<string, string>, rounds = 4, search: unknown = SEARCH) {
  const chat = h.newChat({ 'agent-tools': 'wiki-search wiki-read', ...agentFields });
  const steps = [
    toolCalls(['s1', 'wiki-search', search]),
    ...Array.from({ length: rounds }, (_, i) => toolCalls([`r${i}`, 'wiki-read', { title: 'Small note' }])),
    reply('Done.'),
  ];
  const scripted = scriptedModel(steps);
  const runner = scriptedRunner(h, scripted.model, WIKI_READ_TOOLS);
  expect(await runner.submit({ kind: 'send', chat, text: 'Tell me about pruning' })).toMatchObject({ status: 'completed' });
  const result = h.messages(chat).find((m) => m['tool-call-id'] === 's1')!;
  return { chat, runner, requests: scripted.requests, result };
}

/** Whether a request carries the search result in full, as a stub, or not at all. */
function searchIn(request: ModelRequest): 'full' | 'stub' | 'none' {
  const content = toolContent(request).find((c) => c.includes('BULKYTEXT') || c.startsWith('[Expired tool result: wiki-search'));
  if (!content) return 'none';
  return content.includes('BULKYTEXT') ? 'full' : 'stub';
}

test("a bulky search result stays its tool's rounds, then a stub stands in, paired with its call; Show prompt marks it", async () => {
  const { chat, runner, requests, result } = await run({});
  expect(result['agent-duration']).toBe('3'); // wiki-search's default
  expect(result.text!.length).toBeGreaterThan(1000);
  // Requests 2-4 see it (ages 0, 1, 2); from the fifth on, only the stub.
  expect(requests.map(searchIn)).toEqual(['none', 'full', 'full', 'full', 'stub', 'stub']);
  const stub = toolContent(requests[4]!).find((c) => c.startsWith('[Expired'))!;
  expect(stub).toMatch(/^\[Expired tool result: wiki-search \{"query":"apple pruning","fullText":true\} \(\d+ characters\) left the prompt after 3 rounds/);
  expect(stub).toMatch(/Call the tool again if you need it\.\]$/);
  expect(stub).not.toContain('\n');
  // The call that asked for it is still in the request, answered by the stub: no orphan either way.
  const call = requests[4]!.messages.find((m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.id === 's1'));
  expect(call).toBeDefined();
  expect(requests[4]!.messages.find((m) => m.role === 'tool' && m.toolCallId === 's1')!.content).toBe(stub);
  // The result itself is still in the chat, whole.
  expect(result.text).toContain('BULKYTEXT1');

  const preview = await runner.query({ kind: 'preview', chat });
  const shown = preview.sections.flatMap((s) => s.messages);
  const expired = shown.filter((m) => m.expired);
  expect(expired).toHaveLength(1);
  expect(expired[0]!.content).toBe(stub);
  expect(shown.filter((m) => m.content.includes('BULKYTEXT'))).toEqual([]);
  expect(shown.filter((m) => m.role === 'tool' && !m.expired).length).toBeGreaterThan(0); // the small reads are not marked

  // The Show prompt panel (ui/prompt-preview.ts, in TiddlyWiki's fake DOM) marks it, and only it.
  const ctx = { chat, document: h.$tw.fakeDocument, lingo: (key: string) => `<${key}>`, runner: () => runner, request: (p: Promise<unknown>) => p };
  const tools = new PromptTools(ctx as unknown as ChatContext);
  await (tools as unknown as { refresh(): Promise<void> }).refresh();
  const marked = findAll(tools.panel as never, 'tc-ai-prompt-expired');
  expect(marked.map((n) => n.textContent)).toEqual([`[<Prompt/Expired>] tool: ${stub}`]);
  expect(marked[0]!.attributes.title).toBe('<Prompt/Expired/Hint>');
  const history = findAll(tools.panel as never, 'tc-ai-prompt-section').find((n) => n.attributes['data-section'] === 'history')!;
  expect(history.children[0]!.textContent).toMatch(/ · <Prompt\/ExpiredCount>$/);
});

test('a small result never expires: it gets no duration', async () => {
  const { chat } = await run({}, 1);
  const reads = h.messages(chat).filter((m) => m['tool-name'] === 'wiki-read');
  expect(reads.length).toBe(1);
  expect(reads[0]!['agent-duration']).toBeUndefined();
});

test("an agent's agent-result-rounds overrides the tool's default: fewer rounds, a prefix, or always", async () => {
  const one = await run({ 'agent-result-rounds': '{"wiki-search": 1}' });
  expect(one.result['agent-duration']).toBe('1');
  expect(one.requests.map(searchIn)).toEqual(['none', 'full', 'stub', 'stub', 'stub', 'stub']);

  const prefix = await run({ 'agent-result-rounds': '{"wiki-*": 2, "web-fetch": 5}' });
  expect(prefix.result['agent-duration']).toBe('2');
  expect(prefix.requests.map(searchIn)).toEqual(['none', 'full', 'full', 'stub', 'stub', 'stub']);

  const always = await run({ 'agent-result-rounds': '{"wiki-search": "always"}' });
  expect(always.result['agent-duration']).toBeUndefined();
  expect(always.requests.map(searchIn)).toEqual(['none', 'full', 'full', 'full', 'full', 'full']);
  const preview = await always.runner.query({ kind: 'preview', chat: always.chat });
  expect(preview.sections.flatMap((s) => s.messages).filter((m) => m.expired)).toEqual([]);
});

test('a bad agent-result-rounds fails the turn with a message naming the field, before any request', async () => {
  const chat = h.newChat({ 'agent-tools': 'wiki-search', 'agent-result-rounds': '{"wiki-search": 0}' });
  const scripted = scriptedModel([reply('never')]);
  const runner = scriptedRunner(h, scripted.model, WIKI_READ_TOOLS);
  await runner.submit({ kind: 'send', chat, text: 'hello' });
  expect(scripted.requests).toHaveLength(0);
  expect(h.status(chat)).not.toBe('working');
  const error = h.messages(chat).find((m) => m.role === 'error')!;
  expect(error.text).toMatch(/agent-result-rounds/);
  expect(error.text).toMatch(/whole number of rounds from 1 to 1000, or "always"/);
});

// Images reach models that take them, in a real TiddlyWiki against the mock LLM (the request
// bodies as the mock received them, GET /__mock/requests): an attached png and a png that
// wiki-read returned go out as image parts, never as base64 text in a message tiddler; an image
// deleted later leaves the prompt; hidden image tiddlers are never sent; a model known not to
// take images, a huge image and a fake one are refused before any request; an image stored
// outside the wiki is not fetched.
import { agentLib, bootWiki, type TW } from '../helpers/tw';

const { startMockLlm } = require('../../scripts/mock-llm.cjs');

/** A 1x1 PNG; variants keep its header (so they pass the check) and carry a marker to look for. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAgNg6oAAAAABJRU5ErkJggg==';
const variant = (marker: string) => Buffer.concat([Buffer.from(PNG, 'base64'), Buffer.from(marker)]).toString('base64');
const LATER = variant('later');
const HIDDEN_LATER = variant('hidden later');
const SECRET = variant('secret one');
const CHAT_OWNED = variant('secret two');
const HUGE = Buffer.concat([Buffer.from(PNG, 'base64'), Buffer.alloc(5.5 * 1024 * 1024)]).toString('base64');
const FAKE = Buffer.from('Just some text that claims to be a picture.').toString('base64');

let $tw: TW;
let mock: any;
let chatCount = 0;

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1, models: ['mock-model', 'gpt-3.5-turbo'] });
  $tw = await bootWiki([
    { title: 'Image provider', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': mock.url, 'default-model': 'mock-model' },
    { title: 'Image agent', tags: '$:/tags/AI/Agent', 'agent-provider': 'Image provider', 'agent-tools': 'wiki-read', text: 'You look at pictures.' },
    { title: 'Text-only provider', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': mock.url, 'default-model': 'gpt-3.5-turbo' },
    { title: 'Text-only agent', tags: '$:/tags/AI/Agent', 'agent-provider': 'Text-only provider', text: 'You read.' },
    { title: 'Photo.png', type: 'image/png', text: PNG },
    { title: 'Later.png', type: 'image/png', text: LATER },
    { title: 'Hidden later.png', type: 'image/png', text: HIDDEN_LATER },
    { title: 'Drawing.svg', type: 'image/svg+xml', text: '<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>' },
    { title: '$:/ai/secret.png', type: 'image/png', text: SECRET },
    { title: 'Chat photo', type: 'image/png', text: CHAT_OWNED, 'agent-chat': 'Some chat', 'agent-seq': '3', role: 'user' },
    { title: 'Remote.png', type: 'image/png', _canonical_uri: 'https://images.example/remote.png', text: '' },
    { title: 'Huge.png', type: 'image/png', text: HUGE },
    { title: 'Fake.png', type: 'image/png', text: FAKE },
  ]);
});

afterAll(async () => {
  await mock?.close();
});

const runner = () => agentLib($tw).getLocalRunner();

function newChat(agent = 'Image agent'): string {
  const title = `Image chat ${++chatCount}`;
  $tw.wiki.addTiddler({ title, agent, 'agent-status': 'idle', text: '' });
  return title;
}

function messages(chat: string): Record<string, string>[] {
  return ($tw.wiki.filterTiddlers(`[field:agent-chat[${chat}]has[agent-seq]]`) as string[])
    .map((title) => $tw.wiki.getTiddler(title).getFieldStrings() as Record<string, string>)
    .sort((a, b) => Number(a['agent-seq']) - Number(b['agent-seq']));
}

interface WireMessage {
  role: string;
  content: string | { type: string; text?: string; image_url?: { url: string } }[] | null;
  tool_call_id?: string;
}

/** The request bodies the mock received, as it reports them over HTTP. */
async function received(): Promise<{ body: { messages: WireMessage[] } }[]> {
  const res = await fetch(`${mock.url.replace(/\/v1$/, '')}/__mock/requests`);
  return res.json();
}

const imageUrls = (m: WireMessage | undefined) =>
  Array.isArray(m?.content) ? m!.content.filter((p) => p.type === 'image_url').map((p) => p.image_url!.url) : [];
const texts = (m: WireMessage | undefined) =>
  typeof m?.content === 'string'
    ? m.content
    : Array.isArray(m?.content)
      ? m!.content
          .filter((p) => p.type === 'text')
          .map((p) => p.text)
          .join('\n')
      : '';

test('an attached png goes out as an image part; an attached SVG stays text; the message tiddler keeps only the titles', async () => {
  const chat = newChat();
  expect((await runner().submit({ kind: 'send', chat, text: 'What is in this picture?', attachments: ['Photo.png', 'Drawing.svg'] })).status).toBe('completed');
  const last = (await received()).at(-1)!.body.messages;
  const user = last.find((m) => m.role === 'user')!;
  expect(imageUrls(user)).toEqual([`data:image/png;base64,${PNG}`]);
  expect(texts(user)).toContain('What is in this picture?');
  expect(texts(user)).toContain('Attached image "Photo.png" (image/png, 1 KB)');
  expect(texts(user)).toContain('<circle r="4"/>');
  expect(texts(user)).not.toContain(PNG);
  const [sent] = messages(chat);
  expect(sent).toMatchObject({ role: 'user', text: 'What is in this picture?', attachments: 'Photo.png Drawing.svg' });
});

test('wiki-read of a png returns it as an image part, its title on the tool message; deleted or hidden later, it leaves the prompt', async () => {
  const chat = newChat();
  mock.queue([
    {
      toolCalls: [
        { id: 'read-1', name: 'wiki-read', arguments: { title: 'Later.png' } },
        { id: 'read-2', name: 'wiki-read', arguments: { title: 'Hidden later.png' } },
      ],
    },
    { text: 'Two tiny pictures.' },
    { text: 'Gone now.' },
  ]);
  expect((await runner().submit({ kind: 'send', chat, text: 'Look at Later.png' })).status).toBe('completed');
  const tool = messages(chat).find((m) => m.role === 'tool' && m['tool-call-id'] === 'read-1')!;
  expect(tool).toMatchObject({ 'tool-status': 'ok', attachments: 'Later.png' });
  expect(tool.text).toContain('attached to this result as an image');
  expect(tool.text).not.toContain(LATER);

  let wire = (await received()).at(-1)!.body.messages;
  const at = wire.findIndex((m) => m.role === 'tool' && m.tool_call_id === 'read-1');
  expect(texts(wire[at])).toContain('(image/png image, 1 KB: attached to this result as an image)');
  // Chat Completions tool messages carry text only: the images follow the tool messages in one user message naming the calls.
  expect(wire[at + 1]!.role).toBe('tool');
  expect(wire[at + 2]!.role).toBe('user');
  expect(texts(wire[at + 2])).toMatch(/wiki-read \(read-1\)[\s\S]*wiki-read \(read-2\)/);
  expect(imageUrls(wire[at + 2])).toEqual([`data:image/png;base64,${LATER}`, `data:image/png;base64,${HIDDEN_LATER}`]);
  // Only there: the Current tiddler section (the image just read) does not repeat the base64.
  expect(JSON.stringify(wire).split(HIDDEN_LATER).length - 1).toBe(1);
  expect(JSON.stringify(wire)).toContain('(image/png content, not shown here)');

  $tw.wiki.deleteTiddler('Later.png');
  $tw.wiki.addTiddler({ ...$tw.wiki.getTiddler('Hidden later.png').fields, 'agent-chat': 'Some chat' });
  expect((await runner().submit({ kind: 'send', chat, text: 'And now?' })).status).toBe('completed');
  wire = (await received()).at(-1)!.body.messages;
  expect(JSON.stringify(wire)).not.toContain(LATER);
  expect(JSON.stringify(wire)).not.toContain(HIDDEN_LATER);
  expect(wire.filter((m) => m.role === 'tool').map(texts)).toEqual([
    expect.stringContaining('[The image "Later.png" is not available any more.]'),
    expect.stringContaining('[The image "Hidden later.png" is not available any more.]'),
  ]);
});

test('hidden image tiddlers are never sent: not as attachments, not through wiki-read', async () => {
  const chat = newChat();
  mock.queue([
    {
      toolCalls: [
        { id: 'h1', name: 'wiki-read', arguments: { title: '$:/ai/secret.png' } },
        { id: 'h2', name: 'wiki-read', arguments: { title: 'Chat photo' } },
      ],
    },
    { text: 'Nothing there.' },
  ]);
  expect((await runner().submit({ kind: 'send', chat, text: 'Show me the secrets', attachments: ['$:/ai/secret.png', 'Chat photo'] })).status).toBe(
    'completed',
  );
  const bodies = JSON.stringify((await received()).slice(-2));
  expect(bodies).not.toContain(SECRET);
  expect(bodies).not.toContain(CHAT_OWNED);
  expect(bodies).not.toContain('image_url');
  const wire = (await received()).at(-1)!.body.messages;
  expect(texts(wire.find((m) => m.role === 'user'))).toContain('[Attached tiddler "Chat photo" is not available.]');
  for (const m of wire.filter((m) => m.role === 'tool')) expect(texts(m)).toMatch(/does not exist/);
});

test('a model known not to take images: the turn fails naming the model and what to change, before any request', async () => {
  const chat = newChat('Text-only agent');
  const before = (await received()).length;
  const result = await runner().submit({ kind: 'send', chat, text: 'What is this?', attachments: ['Photo.png'] });
  expect(result.status).toBe('failed');
  expect(result.error).toMatch(
    /The model "gpt-3\.5-turbo" does not take images, and this message attaches the image "Photo\.png"\. Nothing was sent: choose a model that takes images \(field "agent-model" of "Text-only agent" or "default-model" of "Text-only provider"\)/,
  );
  expect((await received()).length).toBe(before);
  expect(messages(chat).map((m) => m.role)).toEqual(['user', 'error']);
  expect(messages(chat)[0]).toMatchObject({ text: 'What is this?', attachments: 'Photo.png' });
});

test.each([
  ['Huge.png', /The image "Huge\.png" cannot be sent: it is 5\.6 MB, more than the 5 MB an image may have\./],
  ['Fake.png', /The image "Fake\.png" cannot be sent: its bytes are not a PNG, JPEG, GIF or WebP image\./],
])('%s attached: the turn fails with a clear message before any request', async (title, error) => {
  const chat = newChat();
  const before = (await received()).length;
  const result = await runner().submit({ kind: 'send', chat, text: 'Look', attachments: [title] });
  expect(result).toMatchObject({ status: 'failed', error: expect.stringMatching(error) });
  expect((await received()).length).toBe(before);
  expect(messages(chat).map((m) => m.role)).toEqual(['user', 'error']);
});

test('a huge and a fake image read with wiki-read are tool errors; nothing of them is sent', async () => {
  const chat = newChat();
  mock.queue([
    {
      toolCalls: [
        { id: 'b1', name: 'wiki-read', arguments: { title: 'Huge.png' } },
        { id: 'b2', name: 'wiki-read', arguments: { title: 'Fake.png' } },
      ],
    },
    { text: 'Those are broken.' },
  ]);
  expect((await runner().submit({ kind: 'send', chat, text: 'Read both' })).status).toBe('completed');
  const tools = messages(chat).filter((m) => m.role === 'tool');
  expect(tools.map((m) => m['tool-status'])).toEqual(['error', 'error']);
  expect(tools.map((m) => m.attachments)).toEqual([undefined, undefined]);
  expect(tools[0]!.text).toMatch(/more than the 5 MB/);
  expect(tools[1]!.text).toMatch(/not a PNG, JPEG, GIF or WebP image/);
  const body = JSON.stringify((await received()).at(-1)!.body);
  expect(body).not.toContain('image_url');
  expect(body).not.toContain(FAKE);
  expect(body.length).toBeLessThan(100_000);
});

test('an image stored outside the wiki (_canonical_uri) is not fetched: the model gets a note', async () => {
  const chat = newChat();
  expect((await runner().submit({ kind: 'send', chat, text: 'And this one?', attachments: ['Remote.png'] })).status).toBe('completed');
  const user = (await received()).at(-1)!.body.messages.find((m) => m.role === 'user');
  expect(imageUrls(user)).toEqual([]);
  expect(texts(user)).toContain(
    'The image "Remote.png" is stored outside the wiki (_canonical_uri https://images.example/remote.png); it is not fetched, so it is not shown.',
  );
});

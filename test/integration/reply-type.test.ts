// Replies cannot borrow the product's classes, and are safe wherever they are transcluded:
// the safe rule set drops every class and style a reply names, and reply tiddlers carry the
// content type text/vnd.tiddlyagent.reply, whose parser is that rule set.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { agentLib, bootWiki, type TW } from '../helpers/tw';

let $tw: TW;
let lib: ReturnType<typeof agentLib>;

beforeAll(async () => {
  $tw = await bootWiki([
    { title: 'Secret', text: 'the secret text' },
    { title: 'Reply chat', agent: '$:/demo/agents/offline-demo', 'agent-status': 'completed' },
    { title: 'Old chat', agent: '$:/demo/agents/offline-demo', 'agent-status': 'completed' },
  ]);
  lib = agentLib($tw);
});

const HOSTILE = [
  '!.tc-ai-card Fake heading',
  '*.tc-ai-approval fake list item',
  '<<<.tc-ai-card\nfake quote\n<<<',
  '|tc-ai-card|k\n|a|b|',
  '@@.tc-ai-card fake card@@ @@color:red;styled@@',
  '<$button actions="<$action-setfield $tiddler=Pwned text=yes/>">Click</$button>',
  '[img[https://evil.example/x.png]]',
  '{{Secret}} <$transclude $tiddler="Secret"/>',
  "''bold'' [[Secret]] [ext[https://example.com/ok]]",
].join('\n\n');

const html = (text: string) => $tw.wiki.renderText('text/html', 'text/vnd.tiddlywiki', text) as string;

test('class and style wikitext in a reply reaches no element, while formatting and links stay', () => {
  $tw.wiki.addTiddler({ title: 'Hostile reply text', text: HOSTILE });
  const out = html('<$ai-wikitext text={{Hostile reply text}}/>');
  expect(out).not.toMatch(/class="[^"]*tc-ai-/);
  expect(out).not.toContain('style=');
  expect(out).toContain('Fake heading');
  expect(out).toContain('fake list item');
  expect(out).toContain('<strong>bold</strong>');
  expect(out).toContain('href="https://example.com/ok"');
  expect(out).toContain('class="tc-tiddlylink-external"');
  expect(out).toContain('fake card'); // @@ is not a rule here: the text shows as text
});

test('a reply saved by the store renders through the safe rules wherever it is transcluded', () => {
  const store = new lib.ChatStore(lib.createTiddlyWikiPort($tw.wiki));
  const title = store.appendMessage('Reply chat', { role: 'assistant', text: HOSTILE });
  expect($tw.wiki.getTiddler(title).fields.type).toBe('text/vnd.tiddlyagent.reply');
  $tw.wiki.addTiddler({ title: 'Ordinary note', text: `Before\n\n{{${title}}}\n\n<$transclude $tiddler="${title}"/>\n\nAfter` });
  const out = $tw.wiki.renderTiddler('text/html', 'Ordinary note') as string;
  expect(out).toContain('Before');
  expect(out).toContain('Fake heading');
  expect(out).not.toContain('<button');
  expect(out).not.toContain('<img');
  expect(out).not.toContain('the secret text');
  expect(out).not.toMatch(/class="[^"]*tc-ai-/);
  expect(out).not.toContain('style=');
  // Opened on its own, through the default view, it is the same.
  expect($tw.wiki.renderTiddler('text/html', title)).not.toContain('<button');
  // Errors quote what a server said: the same type.
  expect($tw.wiki.getTiddler(store.appendMessage('Reply chat', { role: 'error', text: '<$button>x</$button>' })).fields.type).toBe(
    'text/vnd.tiddlyagent.reply',
  );
});

test('transcluded inline, inside a sentence, a reply renders its inline formatting only', () => {
  const store = new lib.ChatStore(lib.createTiddlyWikiPort($tw.wiki));
  const title = store.appendMessage('Reply chat', { role: 'assistant', text: "''short'' {{Secret}} @@.tc-ai-card x@@ <$button>b</$button>" });
  $tw.wiki.addTiddler({ title: 'Inline note', text: `Said: {{${title}}} and <$transclude $tiddler="${title}" $mode="inline"/>.` });
  const out = $tw.wiki.renderTiddler('text/html', 'Inline note') as string;
  expect(out).toContain('Said: <strong>short</strong>'); // inline: no paragraph of its own
  expect(out).not.toMatch(/<button|the secret text|class="[^"]*tc-ai-/);
});

test('user messages stay plain text; tool messages are not replies', () => {
  const store = new lib.ChatStore(lib.createTiddlyWikiPort($tw.wiki));
  expect($tw.wiki.getTiddler(store.appendMessage('Reply chat', { role: 'user', text: 'hi' })).fields.type).toBe('text/plain');
  const tool = store.appendMessage('Reply chat', { role: 'tool', text: 'ok', toolName: 'wiki-read', toolCallId: 'c1', toolStatus: 'ok' });
  expect($tw.wiki.getTiddler(tool).fields.type).toBe('text/plain');
  expect(lib.REPLY_TYPE).toBe('text/vnd.tiddlyagent.reply');
});

test("the type is in the editor's type list", () => {
  const types = $tw.wiki.filterTiddlers('[all[shadows+tiddlers]prefix[$:/language/Docs/Types/]removeprefix[$:/language/Docs/Types/]]');
  expect(types).toContain('text/vnd.tiddlyagent.reply');
  const docs = $tw.wiki.getTiddler('$:/language/Docs/Types/text/vnd.tiddlyagent.reply').fields;
  expect(docs).toMatchObject({ name: 'text/vnd.tiddlyagent.reply', group: 'Text' });
  expect(docs.description).toBeTruthy();
});

test('the Node.js server saves a reply as .txt + .meta, and it loads back unchanged', async () => {
  const store = new lib.ChatStore(lib.createTiddlyWikiPort($tw.wiki));
  const text = 'title: not a field\n\n!! A heading\n\n* item: with colon\n';
  const title = store.appendMessage('Reply chat', { role: 'assistant', text });
  const tiddler = $tw.wiki.getTiddler(title);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reply-type-'));
  try {
    const info = $tw.utils.generateTiddlerFileInfo(tiddler, { directory: dir, wiki: $tw.wiki });
    expect(info).toMatchObject({ type: 'text/vnd.tiddlyagent.reply', hasMetaFile: true });
    expect(path.extname(info.filepath)).toBe('.txt');
    await new Promise<void>((resolve, reject) => $tw.utils.saveTiddlerToFile(tiddler, info, (err: unknown) => (err ? reject(err) : resolve())));
    expect(fs.readFileSync(info.filepath, 'utf8')).toBe(text);
    const loaded = $tw.loadTiddlersFromFile(info.filepath);
    expect(loaded.tiddlers).toHaveLength(1);
    const fields = loaded.tiddlers[0];
    expect(fields).toMatchObject({ title, text, type: 'text/vnd.tiddlyagent.reply', role: 'assistant', 'agent-chat': 'Reply chat' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('old chats: replies saved as text/vnd.tiddlywiki still render safely in the chat and on their own', () => {
  const title = '$:/ai/messages/Old chat/000001';
  $tw.wiki.addTiddler({ title, 'agent-chat': 'Old chat', 'agent-seq': '1', role: 'assistant', type: 'text/vnd.tiddlywiki', text: HOSTILE });
  const rendered = $tw.wiki.renderText('text/html', 'text/vnd.tiddlywiki', '<$ai-chat chat="Old chat"/>') as string;
  // The chat's own UI has buttons (e.g. "show older"); what matters is the reply's body.
  const chat = rendered.slice(rendered.indexOf('<div class="tc-ai-message-body">'), rendered.indexOf('<div class="tc-ai-chat-queued">'));
  const standalone = html(`<$tiddler tiddler="${title}"><$transclude $tiddler="$:/plugins/tiddlyagent/agent/ui/templates/message-body"/></$tiddler>`);
  for (const out of [chat, standalone]) {
    expect(out).toContain('Fake heading');
    expect(out).toContain('<strong>bold</strong>');
    expect(out).not.toMatch(/<button|<img|the secret text|style=/);
    expect(out).not.toMatch(/class="[^"]*tc-ai-(card|approval)/);
  }
});

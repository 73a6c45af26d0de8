// What belongs to a chat (store/chat-parts.ts) when chat titles nest: `Proj` and `Proj/Private`
// each own a full set of parts (messages, a parked version, a turn journal, a kept image, a todo
// list, a tool-made and a user's schedule, a sub-agent's chat with its message), and nothing done
// to `Proj` (export, import of its bundle, rename, delete turn, delete forever, a page's resync)
// reaches a tiddler of `Proj/Private`. A journal, image or todo list without its owning field
// (made by hand, or by a plugin) still counts, for the chat whose exact title scheme it has only.
import { agentLib, bootWiki, type TW } from '../helpers/tw';
import type { MockLlm } from '../helpers/server';

const { startMockLlm } = require('../../scripts/mock-llm.cjs');

jest.setTimeout(60_000);

const AGENT = 'Parts test agent';
const PROVIDER = 'Parts test provider';

let $tw: TW;
let mock: MockLlm;
let count = 0;

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
  $tw = await bootWiki([
    { title: PROVIDER, tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': mock.url, 'default-model': 'mock-model' },
    { title: AGENT, tags: '$:/tags/AI/Agent', 'agent-provider': PROVIDER, text: 'You are the parts test agent.' },
    { title: '$:/config/tiddlyagent/default-agent', text: AGENT },
  ]);
});

afterAll(async () => {
  await mock?.close();
});

const lib = () => agentLib($tw);
const runner = () => lib().getLocalRunner();
type Fields = Record<string, string>;
const fields = (title: string): Fields | undefined => $tw.wiki.getTiddler(title)?.getFieldStrings();
const add = (f: Fields) => $tw.wiki.addTiddler(f);
const seqOf = (title: string) => title.slice(title.lastIndexOf('/') + 1);

/** A chat with one real turn answered twice (a parked version) and, by hand, every other part a chat can own. */
async function furnish(chat: string): Promise<{ user: string }> {
  add({ title: chat, agent: AGENT, 'agent-status': 'idle', text: '' });
  await runner().submit({ kind: 'send', chat, text: `Hello from ${chat}` });
  const user = $tw.wiki.filterTiddlers('[field:agent-chat<c>role[user]]', $tw.rootWidget.makeFakeWidgetWithVariables({ c: chat }))[0] as string;
  await runner().submit({ kind: 'retry', chat, message: user });
  const image = `$:/ai/images/${chat}/1`;
  const child = `$:/ai/sub-agents/${chat}/1`;
  add({
    title: `$:/ai/messages/${chat}/000009`,
    'agent-chat': chat,
    'agent-seq': '9',
    role: 'tool',
    text: 'result',
    attachments: `[[${image}]]`,
    'agent-child': child,
    'tool-name': 'spawn-agent',
  });
  add({ title: image, 'agent-image-chat': chat, type: 'image/png', text: `iVBORw0KGgo${chat.replace(/\W/g, '')}=` });
  add({
    title: `$:/ai/journal/${chat}/${seqOf(user)}`,
    'agent-chat-journal': chat,
    'agent-turn': user,
    type: 'application/json',
    text: `{"Note of ${chat}":{"before":null,"after":null}}`,
  });
  add({ title: `$:/ai/todo/${chat}`, 'agent-chat-todo': chat, type: 'text/plain', text: `- [ ] todo of ${chat}` });
  add({ title: `$:/ai/schedules/${chat}/abc`, tags: '$:/tags/AI/Schedule', 'agent-chat': chat, 'schedule-kind': 'interval', 'schedule-interval': '3600' });
  add({ title: `My schedule for ${chat}`, tags: '$:/tags/AI/Schedule', 'agent-chat': chat, 'schedule-kind': 'interval', 'schedule-interval': '3600' });
  add({ title: child, agent: AGENT, 'agent-parent': chat, 'agent-hidden': 'yes', 'agent-status': 'completed', text: '' });
  add({ title: `$:/ai/messages/${child}/000000`, 'agent-chat': child, 'agent-seq': '0', role: 'user', text: `the sub-task of ${chat}` });
  return { user };
}

/** Every tiddler that names `chat` in its title or a field, with its fields: the test's own walk, independent of the code under test. */
function named(chat: string): Map<string, Fields> {
  const out = new Map<string, Fields>();
  for (const title of $tw.wiki.allTitles() as string[]) {
    const f = fields(title)!;
    if (title.includes(chat) || Object.values(f).some((v) => v.includes(chat))) out.set(title, f);
  }
  return out;
}

/** Two chats, `Proj <n>` and `Proj <n>/Private`, each furnished; returns their titles and what `…/Private` holds. */
async function nested(): Promise<{ proj: string; priv: string; projUser: string; before: Map<string, Fields> }> {
  const proj = `Proj ${++count}`;
  const priv = `${proj}/Private`;
  const { user: projUser } = await furnish(proj);
  await furnish(priv);
  return { proj, priv, projUser, before: named(priv) };
}

/** `…/Private`'s tiddlers are all there, unchanged. */
function untouched(before: Map<string, Fields>): void {
  expect(before.size).toBeGreaterThan(5);
  for (const [title, f] of before) expect([title, fields(title)]).toEqual([title, f]);
}

test("an export of Proj with its journals holds its own journal and image and none of Proj/Private's tiddlers", async () => {
  const { proj, priv, projUser } = await nested();
  const bundle = JSON.parse(lib().exportChat($tw.wiki, proj, 'json', { journals: true }).file!.text) as Fields[];
  const titles = bundle.map((t) => t.title);
  expect(titles).toContain(`$:/ai/journal/${proj}/${seqOf(projUser)}`);
  expect(titles).toContain(`$:/ai/images/${proj}/1`);
  const leaked = bundle.filter((t) => t.title!.includes(priv) || Object.values(t).some((v) => typeof v === 'string' && v.includes('Private')));
  expect(leaked.map((t) => t.title)).toEqual([]);
  // Markdown and the transcript are made of the same gathering.
  expect(lib().exportChat($tw.wiki, proj, 'markdown').file!.text).not.toContain('Private');
});

test("importing Proj's bundle takes only Proj's images along, whatever else the file carries", async () => {
  const { proj, priv } = await nested();
  const bundle = JSON.parse(lib().exportChat($tw.wiki, proj, 'json').file!.text) as Fields[];
  // A file as an older export made it: another chat's image and journal under Proj's title prefix.
  const privJournal = [...named(priv).keys()].find((t) => t.startsWith(`$:/ai/journal/${priv}/`))!;
  bundle.push(fields(`$:/ai/images/${priv}/1`)!, fields(privJournal)!);
  const plan = lib().importText($tw.wiki, `${proj}.json`, JSON.stringify(bundle));
  const privateImage = fields(`$:/ai/images/${priv}/1`)!.text;
  expect(plan.tiddlers.filter((t: Fields) => t.text === privateImage)).toEqual([]);
  expect(plan.tiddlers.filter((t: Fields) => t.title!.startsWith('$:/ai/images/'))).toHaveLength(1);
  expect(plan.notMapped.join(' ')).not.toMatch(/turn journal/);
});

test("renaming Proj moves its parts and not one of Proj/Private's, nor a reference to them", async () => {
  const { proj, priv, before } = await nested();
  // A message of Proj that names Proj/Private's image (an attachment the user chose).
  add({
    title: `$:/ai/messages/${proj}/000010`,
    'agent-chat': proj,
    'agent-seq': '10',
    role: 'user',
    text: 'look at this',
    attachments: `[[$:/ai/images/${priv}/1]]`,
  });
  const to = `${proj} renamed`;
  await runner().submit({ kind: 'rename', chat: proj, to });
  untouched(before);
  expect(fields(`$:/ai/messages/${to}/000010`)?.attachments).toBe(`[[$:/ai/images/${priv}/1]]`);
  // Proj's own parts all moved; the user's schedule keeps its title and names the new chat.
  expect([...named(proj).keys()].filter((t) => !t.includes(to) && !t.includes(priv))).toEqual([`My schedule for ${proj}`]);
  expect(fields(`My schedule for ${proj}`)?.['agent-chat']).toBe(to);
  expect(fields(`$:/ai/images/${to}/1`)?.['agent-image-chat']).toBe(to);
  expect(fields(`$:/ai/todo/${to}`)?.['agent-chat-todo']).toBe(to);
});

test('deleting a turn of Proj, then Proj forever, leaves every tiddler of Proj/Private', async () => {
  const { proj, priv, projUser, before } = await nested();
  await runner().submit({ kind: 'delete-turn', chat: proj, message: projUser, keepChanges: true }); // its journal (a change that stands) goes with it
  untouched(before);
  add({ ...fields(proj)!, 'agent-deleted': '20260101000000000' });
  const { deleted } = await runner().submit({ kind: 'delete-chat', chat: proj });
  expect(deleted.filter((t) => t.includes(priv))).toEqual([]);
  untouched(before);
  // Of Proj, only the user's own schedule is left.
  expect([...named(proj).keys()].filter((t) => !t.includes(priv))).toEqual([`My schedule for ${proj}`]);
});

test('a journal, image and todo list without their owning field count for the chat whose exact title scheme they have, never for a chat whose title is a prefix of it', async () => {
  const chat = `Legacy ${++count}`;
  const sub = `${chat}/Sub`;
  for (const c of [chat, sub]) {
    add({ title: c, agent: AGENT, 'agent-status': 'idle', text: '' });
    add({ title: `$:/ai/messages/${c}/000000`, 'agent-chat': c, 'agent-seq': '0', role: 'user', text: `hello ${c}` });
    add({
      title: `$:/ai/messages/${c}/000001`,
      'agent-chat': c,
      'agent-seq': '1',
      role: 'tool',
      'tool-name': 'mcp-x-y',
      text: 'an image',
      attachments: `[[$:/ai/images/${c}/1]]`,
    });
    // Field-less, as a hand-made or older tiddler could be.
    add({ title: `$:/ai/journal/${c}/000000`, type: 'application/json', text: '{}' });
    add({ title: `$:/ai/images/${c}/1`, type: 'image/png', text: 'iVBORw0KGgo=' });
    add({ title: `$:/ai/todo/${c}`, type: 'text/plain', text: `- [ ] ${c}` });
  }
  const subBefore = named(sub);
  const bundle = JSON.parse(lib().exportChat($tw.wiki, chat, 'json', { journals: true }).file!.text) as Fields[];
  expect(bundle.map((t) => t.title).sort()).toEqual(
    [chat, `$:/ai/images/${chat}/1`, `$:/ai/journal/${chat}/000000`, `$:/ai/messages/${chat}/000000`, `$:/ai/messages/${chat}/000001`].sort(),
  );
  const to = `${chat} moved`;
  await runner().submit({ kind: 'rename', chat, to });
  untouched(subBefore);
  // Moved, and given the field they lacked.
  expect(fields(`$:/ai/journal/${to}/000000`)?.['agent-chat-journal']).toBe(to);
  expect(fields(`$:/ai/images/${to}/1`)?.['agent-image-chat']).toBe(to);
  expect(fields(`$:/ai/todo/${to}`)?.['agent-chat-todo']).toBe(to);
  expect(fields(`$:/ai/messages/${to}/000001`)?.attachments).toBe(`[[$:/ai/images/${to}/1]]`);
  for (const t of [`$:/ai/journal/${chat}/000000`, `$:/ai/images/${chat}/1`, `$:/ai/todo/${chat}`]) expect(fields(t)).toBeUndefined();
  add({ ...fields(to)!, 'agent-deleted': '20260101000000000' });
  await runner().submit({ kind: 'delete-chat', chat: to });
  expect([...named(to).keys()]).toEqual([]);
  untouched(subBefore);
});

test("a page's resync of Proj (chat-sync) drops Proj's stale tiddlers and none of Proj/Private's", async () => {
  const { proj, priv, projUser, before } = await nested();
  const sources: { listeners: Map<string, (e: { data: string; lastEventId: string }) => void> }[] = [];
  // The wiki's modules run in TiddlyWiki's sandbox context: the page's EventSource goes there.
  const sandbox = $tw.utils.sandbox as Record<string, unknown>;
  sandbox.EventSource = class {
    listeners = new Map<string, (e: { data: string; lastEventId: string }) => void>();
    constructor() {
      sources.push(this);
    }
    addEventListener(name: string, listener: (e: { data: string; lastEventId: string }) => void) {
      this.listeners.set(name, listener);
    }
    close() {}
  };
  try {
    const { PushChannel } = $tw.modules.execute('$:/plugins/tiddlyagent/agent/runner/startup/push-channel.js', '');
    new PushChannel({ prefix: '/', cursor: '' }).start();
    // The server's list of Proj's tiddlers, without its journal (deleted on the server meanwhile).
    const journal = `$:/ai/journal/${proj}/${seqOf(projUser)}`;
    const titles = [...named(proj).keys()].filter((t) => !t.includes(priv) && t !== journal);
    sources.at(-1)!.listeners.get('chat-sync')!({ data: JSON.stringify({ chat: proj, titles }), lastEventId: '' });
    expect(fields(journal)).toBeUndefined();
    untouched(before);
  } finally {
    delete sandbox.EventSource;
  }
});

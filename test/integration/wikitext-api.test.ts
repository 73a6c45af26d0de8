// The wikitext API against a real TiddlyWiki and the mock LLM: <$action-ai-send> in a button,
// the tm-ai-send message (handled by the root widget, as the browser start-up installs it), and
// the aimessages / aichats filter operators, which answer nothing in the agent's view.
import { agentLib, bootWiki, type TW } from '../helpers/tw';

const { startMockLlm, defaultReply } = require('../../scripts/mock-llm.cjs');

const AGENT = 'Wikitext agent';
const OTHER_AGENT = 'Other wikitext agent';
const PROVIDER = 'Wikitext provider';
const NOTE = 'Garden plan';
const NOTE_TEXT = 'Plant pomegranates along the south wall.';

let $tw: TW;
let mock: any;
let root: any;
const navigated: string[] = [];

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
  $tw = await bootWiki([
    { title: PROVIDER, tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': mock.url, 'default-model': 'mock-model' },
    { title: AGENT, tags: '$:/tags/AI/Agent', 'agent-provider': PROVIDER, text: 'You are the wikitext test agent.' },
    { title: OTHER_AGENT, tags: '$:/tags/AI/Agent', 'agent-provider': PROVIDER, text: 'You are the other agent.' },
    { title: '$:/config/tiddlyagent/default-agent', text: `${AGENT}\n` },
    { title: NOTE, text: NOTE_TEXT },
  ]);
  // The page's root widget, with the tm-ai-send handler the browser start-up module adds to it.
  const Widget = $tw.modules.execute('$:/core/modules/widgets/widget.js', '').widget;
  root = new Widget({ type: 'widget', children: [] }, { wiki: $tw.wiki, document: $tw.fakeDocument });
  root.addEventListener('tm-navigate', (event: { navigateTo: string }) => {
    navigated.push(event.navigateTo);
    return false;
  });
  $tw.rootWidget = root;
  $tw.modules.execute('$:/plugins/tiddlyagent/agent/ui/send-message-startup.js', '').startup();
});

afterAll(async () => {
  await mock?.close();
});

const runner = () => agentLib($tw).getLocalRunner();
const chats = () => $tw.wiki.filterTiddlers('[has[agent]!is[system]]') as string[];
const fields = (title: string) => ($tw.wiki.getTiddler(title)?.getFieldStrings() ?? {}) as Record<string, string>;
const messages = (chat: string) =>
  ($tw.wiki.filterTiddlers('[<chat>aimessages[]]', $tw.rootWidget.makeFakeWidgetWithVariables({ chat })) as string[]).map(fields);

/** Resolves once `check` holds, re-checked on every wiki change; fails after 10 s. */
function until(check: () => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      if (!check()) return;
      clearTimeout(timer);
      $tw.wiki.removeEventListener('change', done);
      resolve();
    };
    const timer = setTimeout(() => {
      $tw.wiki.removeEventListener('change', done);
      reject(new Error(`timed out waiting for ${what}`));
    }, 10_000);
    $tw.wiki.addEventListener('change', done);
    done();
  });
}

const answered = (chat: string, count = 1) =>
  until(() => fields(chat)['agent-status'] === 'completed' && messages(chat).filter((m) => m.role === 'assistant').length >= count, `the reply in "${chat}"`);

/** Render `wikitext` under the root widget with `currentTiddler` set, and click its first button (or run it as actions). */
function click(wikitext: string, currentTiddler = NOTE): void {
  const parser = $tw.wiki.parseText('text/vnd.tiddlywiki', `<$tiddler tiddler=<<tiddler>>>${wikitext}</$tiddler>`);
  const widget = $tw.wiki.makeWidget(parser, { document: $tw.fakeDocument, parentWidget: root, variables: { tiddler: currentTiddler } });
  widget.render($tw.fakeDocument.createElement('div'), null);
  const find = (w: any): any => (w.parseTreeNode?.type === 'button' ? w : (w.children ?? []).map(find).find(Boolean));
  const button = find(widget);
  expect(button).toBeDefined();
  button.domNodes[0].getBoundingClientRect = () => ({ top: 0, left: 0, width: 0, height: 0 });
  button.invokeActions(button, {});
}

/** The request the mock got whose last user message is `text`. */
function requestFor(text: string): any {
  return mock.requests.find((r: any) => {
    const users = (r.body?.messages ?? []).filter((m: { role: string }) => m.role === 'user');
    return users.length && JSON.stringify(users[users.length - 1].content).includes(text);
  });
}

describe('<$action-ai-send>', () => {
  test('attachments: a title list, or exactly the title of a tiddler (<<currentTiddler>> with spaces in it)', async () => {
    $tw.wiki.addTiddler({ title: 'List chat', agent: AGENT, 'agent-status': 'idle' });
    click('<$button><$action-ai-send chat="List chat" message="Two notes" attachments="[[Garden plan]] Figs"/>Go</$button>');
    await answered('List chat');
    expect(messages('List chat')[0]!.attachments).toBe('[[Garden plan]] Figs');
  });

  test('"Summarize this tiddler": a new chat with the default agent, the tiddler attached, opened, answered', async () => {
    const before = new Set(chats());
    click('<$button><$action-ai-send message="Summarize this tiddler" attachments=<<currentTiddler>>/>Summarize</$button>');
    const made = chats().filter((c) => !before.has(c));
    expect(made).toHaveLength(1);
    const chat = made[0]!;
    expect(fields(chat).agent).toBe(AGENT);
    expect(navigated).toContain(chat);
    await answered(chat);
    const [user, reply] = messages(chat);
    expect(user).toMatchObject({ role: 'user', text: 'Summarize this tiddler', attachments: `[[${NOTE}]]` });
    expect(reply).toMatchObject({ role: 'assistant', text: expect.stringContaining("''Mock reply''") });
    // The model got the attached tiddler's text with the message.
    expect(JSON.stringify(requestFor('Summarize this tiddler').body)).toContain(NOTE_TEXT);
  });

  test('into an existing chat, with the agent it has; no navigation unless asked', async () => {
    $tw.wiki.addTiddler({ title: 'Existing chat', agent: OTHER_AGENT, 'agent-status': 'idle' });
    const before = chats().length;
    const seen = navigated.length;
    click('<$button><$action-ai-send chat="Existing chat" message="Hello existing" agent="ignored for an existing chat"/>Go</$button>');
    await answered('Existing chat');
    expect(chats()).toHaveLength(before);
    expect(navigated).toHaveLength(seen);
    expect(fields('Existing chat').agent).toBe(OTHER_AGENT);
    expect(messages('Existing chat').map((m) => m.text)).toEqual(['Hello existing', defaultReply('Hello existing')]);
  });

  test('a new chat of another agent under a title of its own; the chat is <<aiSendChat>> for the actions inside', async () => {
    click(
      '<$button><$action-ai-send new="yes" agent="Other wikitext agent" title="Pomegranate questions" navigate="no" message="Why pomegranates?"><$action-setfield $tiddler="$:/temp/last-ai-chat" text=<<aiSendChat>>/></$action-ai-send>Ask</$button>',
    );
    const chat = $tw.wiki.getTiddlerText('$:/temp/last-ai-chat');
    expect(chat).toBe('Pomegranate questions');
    expect(navigated).not.toContain(chat);
    expect(fields(chat).agent).toBe(OTHER_AGENT);
    await answered(chat);
    // Again: the title is made unique.
    click(
      '<$button><$action-ai-send new="yes" title="Pomegranate questions" navigate="no" message="Again"><$action-setfield $tiddler="$:/temp/last-ai-chat" text=<<aiSendChat>>/></$action-ai-send>Ask</$button>',
    );
    expect($tw.wiki.getTiddlerText('$:/temp/last-ai-chat')).toBe('Pomegranate questions 1');
    await answered('Pomegranate questions 1');
  });

  test('a button (say, one the agent wrote) cannot hand the model a hidden tiddler as an attachment', async () => {
    const SECRET = 'the hidden chat says hunter2';
    $tw.wiki.addTiddler({ title: 'Private chat', agent: AGENT, 'agent-status': 'idle' });
    $tw.wiki.addTiddler({ title: '$:/ai/messages/Private chat/000001', 'agent-chat': 'Private chat', 'agent-seq': '1', role: 'user', text: SECRET });
    $tw.wiki.addTiddler({ title: 'Exfiltration chat', agent: AGENT, 'agent-status': 'idle' });
    click(
      '<$button><$action-ai-send chat="Exfiltration chat" message="What do these say?" attachments="[[$:/ai/messages/Private chat/000001]] [[Private chat]]"/>Go</$button>',
    );
    await answered('Exfiltration chat');
    const body = JSON.stringify(requestFor('What do these say?').body);
    expect(body).not.toContain('hunter2');
    expect(body).toContain('not available');
  });

  test('an empty message or a chat that is not one sends nothing and makes nothing', () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const before = $tw.wiki.allTitles().length;
      const requests = mock.requests.length;
      click('<$button><$action-ai-send message="  "/>Empty</$button>');
      click(`<$button><$action-ai-send chat="${NOTE}" message="Hello note"/>Not a chat</$button>`);
      click('<$button><$action-ai-send chat="No such tiddler" message="Hello"/>Missing</$button>');
      expect($tw.wiki.allTitles().length).toBe(before);
      expect(mock.requests.length).toBe(requests);
      expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
        expect.stringContaining('the message is empty'),
        expect.stringContaining(`"${NOTE}" is not a chat`),
        expect.stringContaining('"No such tiddler" is not a chat'),
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  test("a send during a turn waits in the chat's queue and is answered after it, in order", async () => {
    $tw.wiki.addTiddler({ title: 'Busy chat', agent: AGENT, 'agent-status': 'idle' });
    let release!: () => void;
    mock.queue({ text: 'First answer', hold: new Promise<void>((resolve) => (release = resolve)) });
    click('<$button><$action-ai-send chat="Busy chat" message="First question"/>1</$button>');
    await until(() => fields('Busy chat')['agent-status'] === 'working', 'the first turn');
    click('<$button><$action-ai-send chat="Busy chat" message="Second question"/>2</$button>');
    // Queued: not a message yet, but in the chat's queue.
    expect(messages('Busy chat').map((m) => m.text)).toEqual(['First question']);
    expect(runner().queued('Busy chat')).toEqual(['Second question']);
    release();
    await answered('Busy chat', 2);
    expect(messages('Busy chat').map((m) => `${m.role}: ${m.text}`)).toEqual([
      'user: First question',
      'assistant: First answer',
      'user: Second question',
      `assistant: ${defaultReply('Second question')}`,
    ]);
  });
});

describe('tm-ai-send', () => {
  test('into an existing chat, with attachments as a title list', async () => {
    $tw.wiki.addTiddler({ title: 'Message chat', agent: AGENT, 'agent-status': 'idle' });
    $tw.wiki.addTiddler({ title: 'Second note', text: 'Figs too.' });
    click(
      '<$button><$action-sendmessage $message="tm-ai-send" chat="Message chat" message="Compare these" attachments="[[Garden plan]] [[Second note]]"/>Send</$button>',
    );
    await answered('Message chat');
    expect(messages('Message chat')[0]).toMatchObject({ role: 'user', text: 'Compare these', attachments: '[[Garden plan]] [[Second note]]' });
    const body = JSON.stringify(requestFor('Compare these').body);
    expect(body).toContain(NOTE_TEXT);
    expect(body).toContain('Figs too.');
  });

  test('with no chat it starts one (and opens it); $param alone is the message', async () => {
    const before = new Set(chats());
    click('<$button><$action-sendmessage $message="tm-ai-send" $param="Hello from a param"/>Send</$button>');
    const made = chats().filter((c) => !before.has(c));
    expect(made).toHaveLength(1);
    expect(navigated[navigated.length - 1]).toBe(made[0]);
    await answered(made[0]!);
    expect(messages(made[0]!)[0]!.text).toBe('Hello from a param');
  });
});

describe('filter operators', () => {
  const CHAT = 'Filter chat';
  beforeAll(() => {
    const add = (fields: Record<string, string>) => $tw.wiki.addTiddler(fields);
    add({ title: CHAT, agent: AGENT, 'agent-status': 'completed', modified: '20260102000000000', 'agent-draft-attachments': '[[Draft note]]' });
    add({ title: 'Older chat', agent: AGENT, 'agent-status': 'completed', modified: '20260101000000000', 'agent-current-tiddler': 'Current note' });
    // Written out of order: the operator orders by agent-seq, numerically.
    add({ title: `$:/ai/messages/${CHAT}/000010`, 'agent-chat': CHAT, 'agent-seq': '10', role: 'assistant', text: 'Ten' });
    add({
      title: `$:/ai/messages/${CHAT}/000002`,
      'agent-chat': CHAT,
      'agent-seq': '2',
      role: 'tool',
      text: 'Two',
      'tool-name': 'wiki-read',
      'tool-args': '{"title":"Read note"}',
    });
    add({ title: `$:/ai/messages/${CHAT}/000001`, 'agent-chat': CHAT, 'agent-seq': '1', role: 'user', text: 'One', attachments: '[[Attached note]]' });
    add({
      title: `$:/ai/messages/Older chat/000001`,
      'agent-chat': 'Older chat',
      'agent-seq': '1',
      role: 'user',
      text: 'Old',
      attachments: '[[Attached note]]',
    });
    // A schedule names its chat too but is no message.
    add({ title: '$:/ai/schedules/x', 'agent-chat': CHAT, text: 'not a message' });
  });
  const run = (filter: string, variables: Record<string, string> = {}) =>
    $tw.wiki.filterTiddlers(filter, $tw.rootWidget.makeFakeWidgetWithVariables(variables)) as string[];

  test("aimessages: a chat's messages in order, optionally of one role; the chat of a message by get[agent-chat]", () => {
    expect(run('[<chat>aimessages[]get[text]]', { chat: CHAT })).toEqual(['One', 'Two', 'Ten']);
    expect(run('[<chat>aimessages[user]get[text]]', { chat: CHAT })).toEqual(['One']);
    expect(run('[<chat>aimessages[assistant]get[text]]', { chat: CHAT })).toEqual(['Ten']);
    expect(run('[[No chat]aimessages[]]')).toEqual([]);
    expect(run(`[[$:/ai/messages/${CHAT}/000002]get[agent-chat]]`)).toEqual([CHAT]);
  });

  test('aichats: what counts as a chat about a tiddler, newest first', () => {
    expect(run('[[Attached note]aichats[]]')).toEqual([CHAT, 'Older chat']);
    expect(run('[[Read note]aichats[]]')).toEqual([CHAT]);
    expect(run('[[Draft note]aichats[]]')).toEqual([CHAT]);
    expect(run('[[Current note]aichats[]]')).toEqual(['Older chat']);
    expect(run('[[Nothing to do with it]aichats[]]')).toEqual([]);
    // The "Summarize this tiddler" chat of the first test is about the note.
    expect(run(`[[${NOTE}]aichats[]]`).length).toBeGreaterThan(0);
    // Follows the wiki: a new attachment counts at once.
    $tw.wiki.addTiddler({
      title: `$:/ai/messages/Older chat/000002`,
      'agent-chat': 'Older chat',
      'agent-seq': '2',
      role: 'user',
      text: 'New',
      attachments: '[[Fresh note]]',
    });
    expect(run('[[Fresh note]aichats[]]')).toEqual(['Older chat']);
    // A chat in the bin is left out until it is restored.
    $tw.wiki.addTiddler({ ...$tw.wiki.getTiddler('Older chat').fields, 'agent-deleted': 'yes' });
    expect(run('[[Fresh note]aichats[]]')).toEqual([]);
    $tw.wiki.addTiddler({ ...$tw.wiki.getTiddler('Older chat').fields, 'agent-deleted': undefined });
    expect(run('[[Fresh note]aichats[]]')).toEqual(['Older chat']);
  });

  test("in the agent's view (the model's filters) they answer nothing", () => {
    const view = agentLib($tw).createTiddlyWikiPort($tw.wiki).agentView();
    for (const filter of [
      `[[${CHAT}]aimessages[]]`,
      `[[${CHAT}]aimessages[user]get[text]]`,
      '[[Attached note]aichats[]]',
      '[all[tiddlers+shadows]aichats[]]',
      `[[${NOTE}]aichats[]]`,
      `[[${NOTE}]aichats[]aimessages[]get[text]]`,
      '[all[tiddlers]has[agent]aimessages[]]',
    ])
      expect([filter, view.filter(filter)]).toEqual([filter, []]);
    // The real wiki still answers.
    expect(run('[[Attached note]aichats[]]')).toEqual([CHAT, 'Older chat']);
  });
});

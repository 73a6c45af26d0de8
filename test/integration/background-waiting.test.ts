// The background panel's "Waiting for you" (issue 26, item 2), rendered by a real TiddlyWiki in
// Node: every chat that waits for the user, what each waiting call waits for (the question, or a
// confirmation of which tool) and until when (a turn no user started ends then; a confirmation is
// denied), or that it waits for as long as it takes; in English and in Chinese. The agent
// settings offer the unattended timeout. The question is the model's text: shown as text.
import { bootWiki, type TW } from '../helpers/tw';

const PANEL = '$:/plugins/tiddlyagent/agent/ui/sidebar/background';
const AGENT = '$:/plugins/tiddlyagent/agent/agents/wiki-assistant';
const UNTIL = Date.parse('2026-11-24T12:25:00Z');
let $tw: TW;

beforeAll(async () => {
  const message = (chat: string, seq: number, fields: Record<string, string>) => ({
    title: `$:/ai/messages/${chat}/${String(seq).padStart(6, '0')}`,
    'agent-chat': chat,
    'agent-seq': String(seq),
    ...fields,
  });
  $tw = await bootWiki([
    { title: 'Digest chat', agent: AGENT, 'agent-status': 'input-required' },
    message('Digest chat', 1, { role: 'user', text: 'Make the digest.', 'agent-source': 'schedule:Daily' }),
    message('Digest chat', 2, {
      role: 'tool',
      'tool-name': 'ask-question',
      'tool-status': 'pending',
      'tool-args': JSON.stringify({ question: 'Which <<colour>> for the digest?' }),
      'unattended-expires': String(UNTIL),
    }),
    message('Digest chat', 3, {
      role: 'tool',
      'tool-name': 'wiki-update',
      'tool-status': 'pending',
      'approval-expires': String(UNTIL + 60_000),
      'unattended-expires': String(UNTIL),
    }),
    { title: 'My chat', agent: AGENT, 'agent-status': 'input-required' },
    message('My chat', 1, { role: 'user', text: 'Help me.' }),
    message('My chat', 2, { role: 'tool', 'tool-name': 'ask-question', 'tool-status': 'pending', 'tool-args': JSON.stringify({ question: 'Which one?' }) }),
    { title: 'Idle chat', agent: AGENT, 'agent-status': 'completed' },
  ]);
});

afterEach(() => $tw.wiki.deleteTiddler('$:/language'));

function render(title: string): HTMLElement {
  const html = $tw.wiki.renderTiddler('text/html', title);
  const { JSDOM } = require('jsdom');
  return new JSDOM(`<body>${html}</body>`).window.document.body;
}

const local = (ms: number, locale: string) =>
  new Date(ms).toLocaleString(locale, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });

test('lists each chat that waits for the user, what each call waits for and until when', () => {
  const panel = render(PANEL);
  expect([...panel.querySelectorAll('[data-waiting]')].map((e) => e.getAttribute('data-waiting'))).toEqual(['Digest chat', 'My chat']);
  const digest = panel.querySelector('[data-waiting="Digest chat"]')!;
  const calls = [...digest.querySelectorAll('.tc-ai-bg-waits')];
  expect(calls.map((c) => c.getAttribute('data-call'))).toEqual(['$:/ai/messages/Digest chat/000002', '$:/ai/messages/Digest chat/000003']);
  // The question is shown as text (the model wrote it), never run as wikitext.
  expect(calls[0]!.textContent).toContain('Asks: Which <<colour>> for the digest?');
  expect(calls[0]!.querySelector('.tc-ai-bg-until')!.textContent).toBe(`Waits until ${local(UNTIL, 'en-GB')}`);
  expect(calls[1]!.textContent).toContain('Wants to run wiki-update: allow or deny it in the chat');
  expect(calls[1]!.querySelector('.tc-ai-bg-until')!.textContent).toBe(`Waits until ${local(UNTIL, 'en-GB')}`);
  // A turn the user started waits for as long as it takes.
  const mine = panel.querySelector('[data-waiting="My chat"]')!;
  expect(mine.querySelector('.tc-ai-bg-waits')!.textContent).toContain('Asks: Which one?');
  expect(mine.querySelector('.tc-ai-bg-until')!.textContent).toBe('Waits until you answer');
});

test('says it in Chinese under zh-Hans', () => {
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  const panel = render(PANEL);
  expect(panel.textContent).toContain('等你处理');
  const digest = panel.querySelector('[data-waiting="Digest chat"]')!;
  const calls = [...digest.querySelectorAll('.tc-ai-bg-waits')];
  expect(calls[0]!.textContent).toContain('提问： Which <<colour>> for the digest?');
  expect(calls[0]!.querySelector('.tc-ai-bg-until')!.textContent).toBe(`等到 ${local(UNTIL, 'zh-Hans')}`);
  expect(calls[1]!.textContent).toContain('想要运行 wiki-update：请在聊天中允许或拒绝');
  expect(panel.querySelector('[data-waiting="My chat"] .tc-ai-bg-until')!.textContent).toBe('一直等到你回答');
});

test('nothing waiting: the panel says so', () => {
  for (const chat of ['Digest chat', 'My chat']) $tw.wiki.addTiddler(new $tw.Tiddler($tw.wiki.getTiddler(chat), { 'agent-status': 'failed' }));
  expect(render(PANEL).querySelector('[data-waiting]')).toBeNull();
  expect(render(PANEL).textContent).toContain('No chat waits for you.');
  for (const chat of ['Digest chat', 'My chat']) $tw.wiki.addTiddler(new $tw.Tiddler($tw.wiki.getTiddler(chat), { 'agent-status': 'input-required' }));
});

test('the agent settings offer the unattended timeout, in both languages', () => {
  $tw.wiki.addTiddler({ title: '$:/state/tiddlyagent/settings/agent', text: AGENT });
  // As a page shows it: with the global procedures (ai-lingo) imported.
  const page = () => {
    const html = $tw.wiki.renderText(
      'text/html',
      'text/vnd.tiddlywiki',
      '\\import [all[shadows+tiddlers]tag[$:/tags/Global]]\n{{$:/plugins/tiddlyagent/agent/settings/agents}}',
    );
    const { JSDOM } = require('jsdom');
    return new JSDOM(`<body>${html}</body>`).window.document.body as HTMLElement;
  };
  const form = () => page().querySelector(`.tc-ai-settings-agent[data-agent="${AGENT}"]`)!;
  const row = (label: string) => [...form().querySelectorAll('tr')].find((tr) => tr.querySelector('th')?.textContent === label);
  const english = row('Unattended timeout (s)')!;
  expect(english.querySelector('input')!.getAttribute('placeholder')).toBe('600');
  expect(english.textContent).toContain('0: no limit');
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  expect(row('无人值守超时（秒）')!.textContent).toContain('0：不限时');
});

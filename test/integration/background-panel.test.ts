// The background panel (sidebar tab), rendered by a real TiddlyWiki in Node: every schedule
// with its chat, timing, next run, runs and buttons; a schedule edited by hand into an
// invalid state shows its problem; heartbeats list the agent's chats with their opt-in; a
// running sub-agent has a Stop button; chats with a schedule carry a clock badge.
import { bootWiki, type TW } from '../helpers/tw';

const PANEL = '$:/plugins/tiddlyagent/agent/ui/sidebar/background';
const CHATS = '$:/plugins/tiddlyagent/agent/ui/sidebar/chats';
let $tw: TW;

beforeAll(async () => {
  $tw = await bootWiki([
    { title: 'Health chat', agent: '$:/plugins/tiddlyagent/agent/agents/wiki-assistant', 'agent-status': 'idle' },
    { title: 'Quiet chat', agent: '$:/plugins/tiddlyagent/agent/agents/wiki-assistant', 'agent-status': 'idle' },
    {
      title: '$:/ai/schedules/Health chat/1',
      tags: '$:/tags/AI/Schedule',
      'agent-chat': 'Health chat',
      caption: 'Health records',
      'schedule-kind': 'cron',
      'schedule-cron': '0 9 * * 1',
      'schedule-timezone': 'Europe/Berlin',
      'schedule-message': 'Remind me to update my <<health>> records',
      'schedule-next-run': '2026-11-30T08:00:00.000Z',
      'schedule-run-count': '3',
    },
    {
      title: 'Hand-made',
      tags: '$:/tags/AI/Schedule',
      'agent-chat': 'Quiet chat',
      'schedule-kind': 'cron',
      'schedule-cron': 'every morning',
      'schedule-message': 'x',
    },
    {
      title: 'Beating agent',
      tags: '$:/tags/AI/Agent',
      caption: 'Beater',
      'agent-provider': '$:/plugins/tiddlyagent/agent/providers/openai',
      'agent-heartbeat-interval': '3600',
      'agent-heartbeat-active-hours': '08:00-20:00',
    },
    { title: 'Beat chat', agent: 'Beating agent', 'agent-status': 'idle', 'agent-heartbeat': 'yes', 'agent-heartbeat-next': '2026-11-24T10:00:00.000Z' },
    {
      title: '$:/ai/sub-agents/Health chat/1',
      agent: '$:/plugins/tiddlyagent/agent/agents/wiki-assistant',
      'agent-parent': 'Health chat',
      'agent-hidden': 'yes',
      caption: 'Sub-task: count notes',
      'agent-status': 'working',
    },
  ]);
});

function render(title: string): HTMLElement {
  const html = $tw.wiki.renderTiddler('text/html', title);
  const { JSDOM } = require('jsdom');
  return new JSDOM(`<body>${html}</body>`).window.document.body;
}

test('lists every schedule with its chat, timing, next run, runs and buttons, and says the schedules run only while a page is open', () => {
  const panel = render(PANEL);
  expect(panel.querySelector('[data-where]')!.getAttribute('data-where')).toBe('page');
  const item = panel.querySelector('[data-schedule="$:/ai/schedules/Health chat/1"]')!;
  expect(item.querySelector('.tc-ai-bg-head')!.textContent).toContain('Health chat');
  expect(item.querySelector('.tc-ai-bg-caption')!.textContent).toBe('Health records');
  expect(item.querySelector('.tc-ai-bg-timing')!.textContent).toBe('cron 0 9 * * 1 (Europe/Berlin)');
  expect(item.querySelector('.tc-ai-bg-state')!.textContent).toMatch(/^Next: .*30.*Runs: 3$/);
  // The message is shown as text: the model wrote it.
  expect(item.querySelector('.tc-ai-bg-message')!.textContent).toBe('Remind me to update my <<health>> records');
  expect([...item.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['Pause', 'Edit', 'Cancel']);
  expect(item.querySelector('.tc-ai-bg-problem')).toBeNull();
});

test('a schedule broken by hand shows its problem', () => {
  const item = render(PANEL).querySelector('[data-schedule="Hand-made"]')!;
  expect(item.querySelector('.tc-ai-bg-problem')!.textContent).toMatch(/"every morning" is not a valid cron expression/);
});

test('a paused schedule offers Resume', () => {
  $tw.wiki.addTiddler(new $tw.Tiddler($tw.wiki.getTiddler('$:/ai/schedules/Health chat/1'), { 'schedule-enabled': 'no' }));
  const item = render(PANEL).querySelector('[data-schedule="$:/ai/schedules/Health chat/1"]')!;
  expect(item.querySelector('.tc-ai-bg-state')!.textContent).toMatch(/^Paused · Runs: 3$/);
  expect([...item.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['Resume', 'Edit', 'Cancel']);
  // Finished (off, with no next run): nothing to resume.
  $tw.wiki.addTiddler(new $tw.Tiddler($tw.wiki.getTiddler('$:/ai/schedules/Health chat/1'), { 'schedule-next-run': undefined }));
  const finished = render(PANEL).querySelector('[data-schedule="$:/ai/schedules/Health chat/1"]')!;
  expect(finished.querySelector('.tc-ai-bg-state')!.textContent).toMatch(/^Finished · Runs: 3$/);
  expect([...finished.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['Edit', 'Cancel']);
  $tw.wiki.addTiddler(
    new $tw.Tiddler($tw.wiki.getTiddler('$:/ai/schedules/Health chat/1'), { 'schedule-enabled': 'yes', 'schedule-next-run': '2026-11-30T08:00:00.000Z' }),
  );
});

test("heartbeats list the agent's chats with their opt-in and next beat; running sub-agents have Stop", () => {
  const panel = render(PANEL);
  const beat = panel.querySelector('[data-heartbeat="Beating agent"]')!;
  expect(beat.querySelector('.tc-ai-bg-timing')!.textContent).toBe('every 1 h, only 08:00-20:00');
  const chat = beat.querySelector('[data-chat="Beat chat"]')!;
  expect((chat.querySelector('input[type=checkbox]') as HTMLInputElement).checked).toBe(true);
  expect(chat.querySelector('.tc-ai-bg-next')!.textContent).toMatch(/^Next: /);
  const sub = panel.querySelector('[data-subagent="$:/ai/sub-agents/Health chat/1"]')!;
  expect(sub.textContent).toContain('Sub-task: count notes');
  expect(sub.textContent).toContain('For Health chat');
  expect(sub.querySelector('button')!.textContent).toBe('Stop');
});

test('chats with a schedule or a heartbeat carry a clock badge in the sidebar list', () => {
  const list = render(CHATS);
  const badged = [...list.querySelectorAll('.tc-menu-list-item')]
    .filter((row) => row.querySelector('.tc-ai-clock-badge'))
    .map((row) => row.querySelector('a')!.textContent);
  expect(badged.sort()).toEqual(['Beat chat', 'Health chat', 'Quiet chat']);
});

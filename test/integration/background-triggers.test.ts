// The Background panel's Triggers section, rendered by a real TiddlyWiki in Node: each trigger
// with its chat, filter, state (watching, a pending run's time, paused), runs, message and
// buttons (Pause or Resume, Edit, Delete); a trigger broken by hand shows its problem; a trigger
// or schedule whose agent reached its spending cap says it is paused at the cap.
import { bootWiki, type TW } from '../helpers/tw';

const PANEL = '$:/plugins/tiddlyagent/agent/ui/sidebar/background';
let $tw: TW;
const twNow = () => new Date().toISOString().replace(/[-:TZ.]/g, '');

beforeAll(async () => {
  $tw = await bootWiki([
    {
      title: 'Priced',
      tags: '$:/tags/AI/Provider',
      api: 'openai-chat',
      'base-url': 'http://127.0.0.1:9/v1',
      'default-model': 'm',
      'model-facts': '{"m": {"price-input": 1, "price-output": 1}}',
    },
    { title: 'Capped agent', tags: '$:/tags/AI/Agent', 'agent-provider': 'Priced', 'agent-day-cost-budget': '0.1' },
    { title: 'Inbox chat', agent: 'Capped agent', 'agent-status': 'idle' },
    {
      title: 'Inbox chat reply',
      'agent-chat': 'Inbox chat',
      'agent-seq': '1',
      role: 'assistant',
      model: 'm',
      'tokens-in': '200000',
      'tokens-out': '0',
      text: 'x',
      created: twNow(),
    },
    { title: 'Free chat', agent: '$:/plugins/tiddlyagent/agent/agents/wiki-assistant', 'agent-status': 'idle' },
    {
      title: '$:/t/watching',
      tags: '$:/tags/AI/Trigger',
      'agent-chat': 'Free chat',
      'trigger-filter': '[tag[Inbox]]',
      'trigger-message': 'File the <<new>> notes.',
      'trigger-run-count': '2',
      caption: 'Inbox filer',
    },
    {
      title: '$:/t/pending',
      tags: '$:/tags/AI/Trigger',
      'agent-chat': 'Inbox chat',
      'trigger-filter': '[tag[Journal]]',
      'trigger-message': 'Sum up.',
      'trigger-pending': 'Day 1',
      'trigger-due': '2026-11-24T10:00:00.000Z',
    },
    {
      title: '$:/t/paused',
      tags: '$:/tags/AI/Trigger',
      'agent-chat': 'Free chat',
      'trigger-filter': '[tag[X]]',
      'trigger-message': 'x',
      'trigger-enabled': 'no',
    },
    { title: '$:/t/broken', tags: '$:/tags/AI/Trigger', 'agent-chat': 'Nowhere', 'trigger-filter': '[tag[X]]', 'trigger-message': 'x' },
    {
      title: '$:/s/capped',
      tags: '$:/tags/AI/Schedule',
      'agent-chat': 'Inbox chat',
      'schedule-kind': 'interval',
      'schedule-interval': '3600',
      'schedule-message': 'x',
    },
  ]);
});

function panel(): HTMLElement {
  const html = $tw.wiki.renderTiddler('text/html', PANEL);
  const { JSDOM } = require('jsdom');
  return new JSDOM(`<body>${html}</body>`).window.document.body;
}

test('each trigger shows its chat, filter, state, runs, message and buttons', () => {
  const body = panel();
  const watching = body.querySelector('[data-trigger="$:/t/watching"]')!;
  expect(watching.querySelector('.tc-ai-bg-head')!.textContent).toBe('Free chatInbox filer');
  expect(watching.querySelector('.tc-ai-bg-timing')!.textContent).toBe('When a tiddler matching [tag[Inbox]]');
  expect(watching.querySelector('.tc-ai-bg-state')!.textContent).toBe('Watching · Runs: 2');
  expect(watching.querySelector('.tc-ai-bg-message')!.textContent).toBe('File the <<new>> notes.');
  expect(watching.querySelector('.tc-ai-bg-pause')).not.toBeNull();
  expect(watching.querySelector('.tc-ai-bg-cap')).toBeNull();
  expect(body.querySelector('[data-trigger="$:/t/pending"] .tc-ai-bg-state')!.textContent).toMatch(/^Runs at .+ \(a matching tiddler changed\) · Runs: 0$/);
  const paused = body.querySelector('[data-trigger="$:/t/paused"]')!;
  expect(paused.getAttribute('data-enabled')).toBe('no');
  expect(paused.querySelector('.tc-ai-bg-state')!.textContent).toMatch(/^Paused/);
  expect(paused.querySelector('.tc-ai-bg-resume')).not.toBeNull();
  expect(body.querySelector('[data-trigger="$:/t/broken"] .tc-ai-bg-problem')!.textContent).toBe('The chat "Nowhere" does not exist (any more).');
  expect(body.querySelector('.tc-ai-bg-trigger-open')).not.toBeNull();
});

test('a trigger or schedule whose agent reached its spending cap says it is paused at the cap', () => {
  const body = panel();
  expect(body.querySelector('[data-trigger="$:/t/pending"] .tc-ai-bg-cap')!.textContent).toBe('Paused: its agent reached its spending cap');
  expect(body.querySelector('[data-schedule="$:/s/capped"] .tc-ai-bg-cap')!.textContent).toBe('Paused: its agent reached its spending cap');
});

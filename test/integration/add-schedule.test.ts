// <$action-ai-add-schedule>, the Background panel's Add schedule form, in a real TiddlyWiki in
// Node: it makes nothing from values that could not run and says why in the user's language;
// it never schedules a sub-agent's (hidden) chat or a tiddler that is no chat, whatever the form's
// state tiddler holds; a good form makes the user's own schedule (which the agent's
// remove-schedule cannot remove) and, when asked, the new chat with the chosen agent.
import { agentLib, bootWiki, type TW } from '../helpers/tw';

const STATE = '$:/temp/tiddlyagent/add-schedule';
const ASSISTANT = '$:/plugins/tiddlyagent/agent/agents/wiki-assistant';
let $tw: TW;

beforeAll(async () => {
  $tw = await bootWiki([
    { title: 'Garden chat', agent: ASSISTANT, 'agent-status': 'idle' },
    { title: '$:/ai/sub-agents/Garden chat/1', agent: ASSISTANT, 'agent-parent': 'Garden chat', 'agent-hidden': 'yes', 'agent-status': 'idle' },
    { title: 'Plain note', text: 'not a chat' },
  ]);
});

const schedules = (): string[] => $tw.wiki.filterTiddlers('[all[tiddlers]tag[$:/tags/AI/Schedule]]');

/** Fill the form's state and press Add; returns what the form then says (error) and made (added). */
function add(form: Record<string, string>): { error?: string; added?: string; chat?: string } {
  $tw.wiki.addTiddler({ title: STATE, open: 'yes', ...form });
  const root = $tw.wiki.makeWidget($tw.wiki.parseText('text/vnd.tiddlywiki', ''), { document: $tw.fakeDocument });
  root.render($tw.fakeDocument.createElement('div'), null);
  root.invokeActionString('<$action-ai-add-schedule/>', root);
  const fields = $tw.wiki.getTiddler(STATE)?.fields ?? {};
  return { error: fields.error, added: fields.added, chat: fields['added-chat'] };
}

test("a sub-agent's chat, a tiddler that is no chat, or an agent that does not exist is refused; nothing is made", () => {
  for (const chat of ['$:/ai/sub-agents/Garden chat/1', 'Plain note', 'Nowhere']) {
    expect(add({ chat, kind: 'interval', interval: '600', message: 'Hi' })).toEqual({ error: 'Choose the chat it wakes, or a new chat.' });
  }
  expect(add({ 'new-agent': 'Plain note', kind: 'interval', interval: '600', message: 'Hi' })).toEqual({ error: 'Choose the agent of the new chat.' });
  expect(schedules()).toEqual([]);
  expect($tw.wiki.filterTiddlers('[has[agent]]').sort()).toEqual(['$:/ai/sub-agents/Garden chat/1', 'Demo chat', 'Garden chat']);
});

test('values that could not run are said in plain words, in Chinese under zh-Hans', () => {
  expect(add({ chat: 'Garden chat', kind: 'cron', cron: '61 * * * *', message: 'Hi' }).error).toBe(
    '"61 * * * *" is not a cron expression: write five fields (minute hour day month weekday), such as 0 9 * * 1-5.',
  );
  expect(add({ chat: 'Garden chat', kind: 'interval', interval: '600', 'max-runs': '0', message: 'Hi' }).error).toBe(
    'Write the most runs as a whole number, at least 1.',
  );
  expect(add({ chat: 'Garden chat', kind: 'interval', interval: '600', message: '' }).error).toBe('Write the message it sends to the chat.');
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  try {
    expect(add({ chat: 'Garden chat', kind: 'interval', interval: '59', message: 'Hi' }).error).toBe('间隔须为整数秒，至少 60 秒（一分钟）。');
    expect(add({ chat: 'Garden chat', kind: 'interval', interval: '600', hours: '25:00-26:00', message: 'Hi' }).error).toBe(
      '活动时间“25:00-26:00”不符合 HH:MM-HH:MM 格式：例如 09:00-17:00，跨夜可写 22:00-06:00。',
    );
  } finally {
    $tw.wiki.deleteTiddler('$:/language');
  }
  expect(schedules()).toEqual([]);
});

test("a good form makes the user's own schedule, and the new chat with the agent chosen; the agent cannot remove it", () => {
  const made = add({ kind: 'cron', cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', hours: '08:00-18:00', message: 'Plan the day', 'new-agent': ASSISTANT });
  expect(made.error).toBeUndefined();
  expect(made.added).toMatch(/^\$:\/tiddlyagent\/schedules\/Chat\//);
  expect($tw.wiki.getTiddler(made.chat).fields).toMatchObject({ agent: ASSISTANT, 'agent-status': 'idle' });
  expect($tw.wiki.getTiddler(made.added).fields).toMatchObject({
    'agent-chat': made.chat,
    'schedule-kind': 'cron',
    'schedule-cron': '0 9 * * 1-5',
    'schedule-timezone': 'Europe/Berlin',
    'schedule-active-hours': '08:00-18:00',
    'schedule-message': 'Plan the day',
    'schedule-enabled': 'yes',
  });
  const L = agentLib($tw);
  const book = new L.ScheduleBook(L.createTiddlyWikiPort($tw.wiki));
  expect(book.problem(made.added!)).toBe('');
  expect(() => book.remove(made.chat!, made.added!)).toThrow(/a schedule the user made/);
});

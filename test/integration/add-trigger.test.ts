// <$action-ai-add-trigger>, the Background panel's Add trigger form, in a real TiddlyWiki in Node:
// values that could not run make nothing and are said in the user's language (a filter
// TiddlyWiki cannot read too); a sub-agent's chat or a tiddler that is no chat is refused; a good
// form makes the user's trigger tiddler (and the new chat when asked); the dry-run estimate
// prices the prompt the chat's agent would send now at its model's input price, calling no model.
import { agentLib, bootWiki, type TW } from '../helpers/tw';

const STATE = '$:/temp/tiddlyagent/add-trigger';
const ASSISTANT = '$:/plugins/tiddlyagent/agent/agents/wiki-assistant';
let $tw: TW;

beforeAll(async () => {
  $tw = await bootWiki([
    {
      title: 'Priced provider',
      tags: '$:/tags/AI/Provider',
      api: 'openai-chat',
      'base-url': 'http://127.0.0.1:9/v1',
      'default-model': 'm',
      'model-facts': '{"m": {"price-input": 2, "price-output": 8}}',
    },
    { title: 'Filing agent', tags: '$:/tags/AI/Agent', 'agent-provider': 'Priced provider', text: 'You file notes. '.repeat(200) },
    { title: 'Garden chat', agent: 'Filing agent', 'agent-status': 'idle' },
    { title: '$:/ai/sub-agents/Garden chat/1', agent: ASSISTANT, 'agent-parent': 'Garden chat', 'agent-hidden': 'yes', 'agent-status': 'idle' },
    { title: 'Plain note', text: 'not a chat' },
  ]);
  agentLib($tw).ensureWebGlobals();
});

const triggers = (): string[] => $tw.wiki.filterTiddlers('[all[tiddlers]tag[$:/tags/AI/Trigger]]');

function press(form: Record<string, string>, action = 'add'): Record<string, string> {
  $tw.wiki.addTiddler({ title: STATE, open: 'yes', ...form });
  const root = $tw.wiki.makeWidget($tw.wiki.parseText('text/vnd.tiddlywiki', ''), { document: $tw.fakeDocument });
  root.render($tw.fakeDocument.createElement('div'), null);
  root.invokeActionString(`<$action-ai-add-trigger do="${action}"/>`, root);
  return ($tw.wiki.getTiddler(STATE)?.getFieldStrings() ?? {}) as Record<string, string>;
}

test('values that could not run make nothing and are said in plain words, in Chinese under zh-Hans', () => {
  const good = { chat: 'Garden chat', filter: '[tag[Inbox]]', message: 'File it.' };
  for (const chat of ['$:/ai/sub-agents/Garden chat/1', 'Plain note', 'Nowhere'])
    expect(press({ ...good, chat }).error).toBe('Choose the chat it wakes, or a new chat.');
  expect(press({ ...good, filter: '' }).error).toBe('Write the filter that selects the tiddlers to watch, such as [tag[Inbox]].');
  expect(press({ ...good, filter: '[tag[Inbox]' }).error).toMatch(/^TiddlyWiki cannot read this filter: Filter error/);
  expect(press({ ...good, message: ' ' }).error).toBe('Write the message it sends to the chat (at most 10,000 characters).');
  expect(press({ ...good, debounce: '-1' }).error).toBe('Write the wait as a number of seconds, from 0 to 86400.');
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  try {
    expect(press({ ...good, debounce: 'soon' }).error).toBe('请将等待时间写成 0 到 86400 之间的秒数。');
  } finally {
    $tw.wiki.deleteTiddler('$:/language');
  }
  expect(triggers()).toEqual([]);
});

test('a good form makes the trigger tiddler, and a new chat with the chosen agent when asked', () => {
  const made = press({ chat: 'Garden chat', filter: '[tag[Inbox]]', message: 'File it.', debounce: '10', caption: 'Inbox filer' });
  expect(made.error).toBeUndefined();
  expect($tw.wiki.getTiddler(made.added!)?.getFieldStrings()).toMatchObject({
    tags: '$:/tags/AI/Trigger',
    'agent-chat': 'Garden chat',
    'trigger-filter': '[tag[Inbox]]',
    'trigger-message': 'File it.',
    'trigger-debounce': '10',
    'trigger-enabled': 'yes',
    caption: 'Inbox filer',
  });
  expect(made.added!.startsWith('$:/tiddlyagent/triggers/Garden chat/')).toBe(true);
  const fresh = press({ 'new-agent': 'Filing agent', filter: '[prefix[Journal/]]', message: 'Summarise.' });
  expect($tw.wiki.getTiddler(fresh['added-chat']!)?.fields.agent).toBe('Filing agent');
  expect(triggers()).toHaveLength(2);
});

test("the estimate prices the agent's prompt now at its model's input price, and needs an existing chat", async () => {
  expect(press({ message: 'File it.' }, 'estimate').estimate).toBe(
    "Choose an existing chat to estimate a run's cost (a new chat starts with only the agent's prompt).",
  );
  press({ chat: 'Garden chat', message: 'File it.' }, 'estimate');
  let estimate = '';
  for (let i = 0; i < 200 && !/^About/.test(estimate); i++) {
    await new Promise((resolve) => setImmediate(resolve));
    estimate = $tw.wiki.getTiddler(STATE)?.fields.estimate as string;
  }
  const match = /^About \$(\d\.\d{4}) a run: (\d+) prompt tokens to m as the chat stands now/.exec(estimate);
  expect(match).not.toBeNull();
  // $2 a million input tokens.
  expect(Number(match![1])).toBeCloseTo((Number(match![2]) * 2) / 1_000_000, 4);
  expect(Number(match![2])).toBeGreaterThan(600);
  // No model was asked: the chat has no messages.
  expect($tw.wiki.filterTiddlers('[field:agent-chat[Garden chat]has[role]]')).toEqual([]);
});

test('the longest wait is kept on the trigger, and one shorter than the wait is refused in plain words', () => {
  const good = { chat: 'Garden chat', filter: '[tag[Busy]]', message: 'Summarise the log.', debounce: '10' };
  expect(press({ ...good, 'max-wait': '5' }).error).toBe('Write the longest wait as a number of seconds, no shorter than the wait.');
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  try {
    expect(press({ ...good, 'max-wait': 'never' }).error).toBe('请将最长等待写成秒数，且不短于等待时长。');
  } finally {
    $tw.wiki.deleteTiddler('$:/language');
  }
  const made = press({ ...good, 'max-wait': '300' });
  expect(made.error).toBeUndefined();
  expect($tw.wiki.getTiddler(made.added!)?.fields['trigger-max-wait']).toBe('300');
  // The open form shows the field, with its hint.
  $tw.wiki.addTiddler({ title: STATE, open: 'yes' });
  const html = $tw.wiki.renderTiddler('text/html', '$:/plugins/tiddlyagent/agent/ui/background/add-trigger');
  expect(html).toContain('class="tc-ai-bg-trigger-max-wait"');
  expect(html).toContain('Longest wait (seconds)');
});

// The way from a setup problem to the setting that fixes it: a chat's setup error (no key, no
// model, a refused key, an unknown model, a bad agent field) ends with "Open the TiddlyAgent
// settings", and <$action-ai-settings> opens Control Panel → Settings → TiddlyAgent at the tab
// and the profile or agent the error names (else the chat's agent's provider). Other errors
// (the network, a rate limit) have no such button.
import { bootWiki, type TW } from '../helpers/tw';

const STATES = [
  '$:/state/tab-1749438307',
  '$:/state/tab--697582678',
  '$:/state/tiddlyagent/settings/tab',
  '$:/state/tiddlyagent/settings/provider',
  '$:/state/tiddlyagent/settings/agent',
];
let $tw: TW;

beforeAll(async () => {
  $tw = await bootWiki([
    { title: 'Setup provider', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': 'http://127.0.0.1:9/v1' },
    { title: 'Setup agent', tags: '$:/tags/AI/Agent', 'agent-provider': 'Setup provider' },
    { title: 'Lost agent', tags: '$:/tags/AI/Agent', 'agent-provider': 'No such provider' },
    { title: 'Setup chat', agent: 'Setup agent\n', 'agent-status': 'failed' },
    { title: 'Lost chat', agent: 'Lost agent', 'agent-status': 'failed' },
  ]);
});

/** Run <$action-ai-settings …/> as a button would, and return where it pointed the settings and the story. */
function open(attributes: string): { states: (string | undefined)[]; navigated: string[] } {
  for (const title of STATES) $tw.wiki.deleteTiddler(title);
  const navigated: string[] = [];
  const parser = $tw.wiki.parseText('text/vnd.tiddlywiki', '<$navigator story="$:/StoryList"><$button>x</$button></$navigator>');
  const root = $tw.wiki.makeWidget(parser, { document: $tw.fakeDocument });
  root.render($tw.fakeDocument.createElement('div'), null);
  root.addEventListener('tm-navigate', (event: { navigateTo: string }) => void navigated.push(event.navigateTo));
  root.invokeActionString(`<$action-ai-settings ${attributes}/>`, root);
  return { states: STATES.map((t) => $tw.wiki.getTiddlerText(t)), navigated };
}

const SETTINGS = '$:/plugins/tiddlyagent/agent/settings';

test("the guide's button opens the Providers tab of the TiddlyAgent settings in the Control Panel", () => {
  expect(open('tab="providers"')).toEqual({
    states: ['$:/core/ui/ControlPanel/Settings', SETTINGS, `${SETTINGS}/providers`, undefined, undefined],
    navigated: ['$:/ControlPanel'],
  });
});

test('an error that names a profile opens it; one that names an agent opens the agent', () => {
  expect(open('chat="Setup chat" subject="Setup provider"').states.slice(2)).toEqual([`${SETTINGS}/providers`, 'Setup provider', 'Setup agent']);
  expect(open('chat="Setup chat" subject="Setup agent"').states.slice(2)).toEqual([`${SETTINGS}/agents`, undefined, 'Setup agent']);
});

test("an error that names nothing opens the chat's agent's provider, or the agent when that provider is missing", () => {
  expect(open('chat="Setup chat"').states.slice(2)).toEqual([`${SETTINGS}/providers`, 'Setup provider', 'Setup agent']);
  expect(open('chat="Lost chat"').states.slice(2)).toEqual([`${SETTINGS}/agents`, undefined, 'Lost agent']);
});

test('a setup error in the chat carries the button; a network error does not', () => {
  const message = (seq: number, fields: Record<string, string>) => ({
    title: `$:/ai/messages/Setup chat/${String(seq).padStart(6, '0')}`,
    'agent-chat': 'Setup chat',
    'agent-seq': String(seq),
    role: 'error',
    type: 'text/plain',
    ...fields,
  });
  $tw.wiki.addTiddler(message(0, { text: 'No API key is set for the provider "Setup provider".', 'error-kind': 'config', 'error-tiddler': 'Setup provider' }));
  $tw.wiki.addTiddler(message(1, { text: 'The key was refused.', 'error-kind': 'auth' }));
  $tw.wiki.addTiddler(message(2, { text: 'Could not connect.', 'error-kind': 'network' }));
  const html: string = $tw.wiki.renderText('text/html', 'text/vnd.tiddlywiki', '<$ai-chat chat="Setup chat"/>');
  const buttons = [...html.matchAll(/data-error-kind="([a-z-]+)"[\s\S]*?(?=data-error-kind|$)/g)].map((m) => [
    m[1],
    m[0].includes('tc-ai-error-settings') && m[0].includes('Open the TiddlyAgent settings'),
  ]);
  expect(buttons).toEqual([
    ['config', true],
    ['auth', true],
    ['network', false],
  ]);
});

// The settings' provider setup in Chromium against the mock LLM, which wants the key "sk-good":
// a bad key and an unreachable base URL are named as such; a good key lists the models, one is
// picked, and nothing (field or key) is saved before Save; after Save the key is stored (never in
// a tiddler) and Clear removes it. The manual's screenshot of the setup is taken on the way
// (output/manual/; `npm run shots` also copies it to files/manual/), and the committed one must
// be the size this run took it at.
import { navigate, useServedWiki } from '../helpers/e2e';
import { manualShot, staleShots } from '../helpers/manual-shots';

jest.setTimeout(60_000);

const PROFILE = '$:/demo/providers/mock-llm';

const served = useServedWiki({ mockApiKey: 'sk-good', providerFields: { 'api-key-name': 'mock-api-key' } });

beforeAll(async () => {
  await navigate(served.page, '$:/plugins/tiddlyagent/agent/settings');
  await served.page.locator('select.tc-ai-settings-provider-pick').selectOption(PROFILE);
});

const setup = () => served.page.locator(`.tc-ai-settings-provider[data-provider="${PROFILE}"]`);
const result = () => setup().locator('.tc-ai-provider-result:not([data-ok="testing"])');
const stored = () => served.page.evaluate(() => (window as any).$tw.utils.getPassword('mock-api-key') ?? '');
const field = (name: string) => served.page.evaluate((f) => (window as any).$tw.wiki.getTiddler('$:/demo/providers/mock-llm').fields[f], name);

/** TiddlyWiki redraws after a change on its next tick: wait for the input to show `value`. */
async function shows(cls: string, value: string) {
  await served.page.waitForFunction(([c, v]) => (document.querySelector(`input.${c}`) as HTMLInputElement | null)?.value === v, [cls, value] as const);
}

async function test_(key: string, baseUrl?: string) {
  await setup().locator('input[type="password"]').fill(key);
  if (baseUrl !== undefined) await setup().locator('input.tc-ai-settings-field-base-url').fill(baseUrl);
  await served.page.evaluate(() => (window as any).$tw.wiki.deleteTiddler('$:/temp/tiddlyagent/provider-test/$:/demo/providers/mock-llm'));
  await setup().locator('button.tc-ai-provider-test').click();
  await result().waitFor();
}

test('a bad key is named as a key problem', async () => {
  await test_('sk-bad');
  expect(await result().getAttribute('data-problem')).toBe('key');
  expect(await result().textContent()).toContain('The key was refused');
});

test('an unreachable base URL is named as such, and nothing was saved', async () => {
  const saved = await field('base-url');
  await test_('sk-good', 'http://127.0.0.1:9/v1');
  expect(await result().getAttribute('data-problem')).toBe('unreachable');
  expect(await result().textContent()).toContain('cannot be reached');
  expect(await field('base-url')).toBe(saved);
  await setup().locator('button.tc-ai-settings-discard').click();
  await shows('tc-ai-settings-field-base-url', saved);
});

test('a good key lists the models; a pick and the key are saved only by Save; Clear removes the key', async () => {
  await test_('sk-good');
  expect(await result().getAttribute('data-ok')).toBe('yes');
  const models = setup().locator('button.tc-ai-provider-model');
  expect(await models.allTextContents()).toEqual(['mock-model', 'mock-model-large']);
  // The manual's screenshot of the provider setup (output/manual/, committed in files/manual/ by npm run shots; shown in "TiddlyAgent Manual: Providers").
  await manualShot(served.page.locator('.tc-tiddler-frame[data-tiddler-title="$:/plugins/tiddlyagent/agent/settings"]'), 'settings-provider.png');
  await models.filter({ hasText: 'mock-model-large' }).click();
  await shows('tc-ai-settings-field-default-model', 'mock-model-large');
  expect(await field('default-model')).toBe('mock-model');
  expect(await stored()).toBe('');
  await setup().locator('button.tc-ai-settings-save').click();
  await served.page.waitForFunction(() => (window as any).$tw.wiki.getTiddler('$:/demo/providers/mock-llm').fields['default-model'] === 'mock-model-large');
  expect(await stored()).toBe('sk-good');
  await setup().locator('.tc-ai-settings-key-state[data-stored="yes"]').waitFor();
  // The key is in no tiddler.
  expect(await served.page.evaluate(() => (window as any).$tw.wiki.filterTiddlers('[all[tiddlers]search[sk-good]]'))).toEqual([]);
  await setup().locator('button.tc-ai-settings-key-clear').click();
  await setup().locator('.tc-ai-settings-key-state[data-stored="no"]').waitFor();
  expect(await stored()).toBe('');
  expect(served.errors).toEqual([]);
});

// Any number of profiles: Add makes one (picked at once), Duplicate copies every field of the
// picked one under a new name (a shipped one too, key name and all), Remove asks and deletes a
// profile the user made; a shipped profile cannot be removed, only reset to as shipped once changed.
test('add, duplicate and remove a profile; a shipped one is reset, not removed', async () => {
  served.page.on('dialog', (dialog) => void dialog.accept());
  const picked = () => served.page.evaluate(() => (window as any).$tw.wiki.getTiddlerText('$:/state/tiddlyagent/settings/provider'));
  const fields = (title: string) => served.page.evaluate((t) => (window as any).$tw.wiki.getTiddler(t)?.fields, title);
  const bar = served.page.locator('.tc-ai-settings-providers-bar');
  const provider = (title: string) => served.page.locator(`.tc-ai-settings-provider[data-provider="${title}"]`);

  await bar.locator('button.tc-ai-settings-provider-add').click();
  const added = '$:/tiddlyagent/providers/New provider';
  await provider(added).waitFor();
  expect(await picked()).toBe(added);
  expect(await fields(added)).toMatchObject({ caption: 'New provider', tags: ['$:/tags/AI/Provider'], api: 'openai-chat', 'api-key-name': '' });
  // A profile of one's own chooses its API; a shipped one shows its API fixed.
  expect(await provider(added).locator('select.tc-ai-settings-field-api').inputValue()).toBe('openai-chat');

  await bar.locator('button.tc-ai-settings-provider-duplicate').click();
  const copy = '$:/tiddlyagent/providers/New provider (copy)';
  await provider(copy).waitFor();
  expect(await fields(copy)).toMatchObject({ caption: 'New provider (copy)', api: 'openai-chat', 'base-url': (await fields(added))['base-url'] });
  await bar.locator('button.tc-ai-settings-provider-remove').click();
  await served.page.waitForFunction((t) => !(window as any).$tw.wiki.tiddlerExists(t), copy);
  expect(await served.page.locator('select.tc-ai-settings-provider-pick option').allTextContents()).not.toContain('New provider (copy)');

  const shipped = '$:/plugins/tiddlyagent/agent/providers/openai';
  await served.page.locator('select.tc-ai-settings-provider-pick').selectOption(shipped);
  await provider(shipped).waitFor();
  expect(await bar.locator('button.tc-ai-settings-provider-remove').count()).toBe(0);
  expect(await bar.locator('button.tc-ai-settings-provider-reset').count()).toBe(0);
  expect(await provider(shipped).locator('select.tc-ai-settings-field-api').count()).toBe(0);
  await bar.locator('button.tc-ai-settings-provider-duplicate').click();
  await provider('$:/tiddlyagent/providers/OpenAI (copy)').waitFor();
  expect(await fields('$:/tiddlyagent/providers/OpenAI (copy)')).toMatchObject({
    api: 'openai-chat',
    'base-url': 'https://api.openai.com/v1',
    'api-key-name': 'openai-api-key',
    caption: 'OpenAI (copy)',
  });

  // A changed shipped profile goes back to as shipped: its override is removed.
  await served.page.locator('select.tc-ai-settings-provider-pick').selectOption(shipped);
  await provider(shipped).locator('input.tc-ai-settings-field-default-model').fill('gpt-4.1');
  await provider(shipped).locator('button.tc-ai-settings-save').click();
  await served.page.waitForFunction((t) => (window as any).$tw.wiki.tiddlerExists(t), shipped);
  await bar.locator('button.tc-ai-settings-provider-reset').click();
  await served.page.waitForFunction((t) => !(window as any).$tw.wiki.tiddlerExists(t), shipped);
  expect((await fields(shipped))['default-model']).toBe('gpt-4o-mini');
  expect(served.errors).toEqual([]);
});

// "New chats use" shows the agent the setting names, even with whitespace around it (the shipped
// setting once ended in a newline, and the select showed nothing), and "Edit the agent" opens it.
test('Settings → Agents shows the default agent chosen, with a newline around the setting too', async () => {
  const settings = served.page.locator('.tc-tiddler-frame[data-tiddler-title="$:/plugins/tiddlyagent/agent/settings"]');
  await settings.locator('.tc-tab-buttons button[data-tab-title="$:/plugins/tiddlyagent/agent/settings/agents"]').click();
  for (const text of ['$:/demo/agents/offline-demo', '  $:/demo/agents/offline-demo\n']) {
    await served.page.evaluate((t) => {
      (window as any).$tw.wiki.deleteTiddler('$:/state/tiddlyagent/settings/agent');
      (window as any).$tw.wiki.addTiddler({ title: '$:/config/tiddlyagent/default-agent', text: t });
    }, text);
    await served.page.waitForFunction(
      () =>
        (document.querySelector('select.tc-ai-settings-default-agent') as HTMLSelectElement | null)?.selectedOptions[0]?.textContent ===
        'Offline demo assistant (mock LLM)',
    );
    await settings.locator('.tc-ai-settings-agent[data-agent="$:/demo/agents/offline-demo"]').waitFor();
  }
});

test('the committed screenshot is the size this run took it at (npm run shots refreshes it)', () => {
  expect(staleShots(['settings-provider.png'])).toEqual([]);
});

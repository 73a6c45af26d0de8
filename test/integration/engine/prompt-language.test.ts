// The prompt's fixed words follow the wiki's language (issue 15 item 5): under zh-Hans the
// Current tiddler heading the runner sends is Chinese, while the security note after it stays
// as written; and a failed model call stores its kind, for the UI's translated headline.
import { bootEngineWiki, disposeRunners, reply, scriptedModel, scriptedRunner, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await bootEngineWiki();
});
afterAll(() => {
  h.$tw.wiki.deleteTiddler('$:/language');
  disposeRunners();
});

test('under zh-Hans the Current tiddler section has the Chinese heading and keeps the untrusted-data note', async () => {
  h.$tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  const chat = h.newChat();
  h.$tw.wiki.addTiddler({ title: 'Garden', text: 'Beds and paths.' });
  h.store.updateFields(chat, { 'agent-current-tiddler': 'Garden' });
  const scripted = scriptedModel([reply('好的。')]);
  expect(await scriptedRunner(h, scripted.model, []).submit({ kind: 'send', chat, text: '看看花园' })).toMatchObject({ status: 'completed' });
  const section = scripted.requests[0]!.messages.find((m) => String(m.content).includes('Beds and paths.'))!;
  expect(String(section.content)).toContain('当前条目：“Garden”的权威最新内容');
  expect(String(section.content)).not.toContain('the authoritative, up-to-date content');
  expect(String(section.content)).toMatch(/untrusted/i);
  h.$tw.wiki.deleteTiddler('$:/language');
});

test('a model call that cannot connect fails with error-kind network', async () => {
  const chat = h.newChat();
  const scripted = scriptedModel([
    async function* () {
      yield* [];
      throw Object.assign(new Error('Could not connect to http://127.0.0.1:9/v1 (connection refused).'), {
        name: 'ProviderError',
        kind: 'network',
        retryable: false,
        quota: false,
      });
    },
  ]);
  expect(await scriptedRunner(h, scripted.model, []).submit({ kind: 'send', chat, text: 'hi' })).toMatchObject({ status: 'failed' });
  const error = h.messages(chat).find((m) => m.role === 'error')!;
  expect(error['error-kind']).toBe('network');
  expect(error.text).toContain('Could not connect');
});

// A prompt that stays lean (issue 26 item 3) in a real browser: the demo agent keeps a bulky
// wiki-search result for one round (its `agent-result-rounds`); after that, the request the
// mock LLM gets carries a one-line stub instead of the result, and Show prompt marks it
// expired, in English and in zh-Hans.
import { navigate, until, useServedWiki } from '../helpers/e2e';

jest.setTimeout(60_000);

const served = useServedWiki({ mockDelayMs: 1 });
const chat = () => served.page.locator('.tc-ai-chat[data-chat="Demo chat"]');
const AGENT = '$:/demo/agents/offline-demo';

async function send(text: string): Promise<void> {
  const before = served.wiki.mock.requests.length;
  await chat().locator('textarea.tc-ai-chat-input').fill(text);
  await chat().locator('textarea.tc-ai-chat-input').press('Control+Enter');
  await until(() => served.wiki.mock.requests.length > before, 'the request');
  await served.page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Demo chat"]')?.getAttribute('data-status') === 'completed');
}

const toolMessages = (request: any) =>
  request.body.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => String(m.content));

test('a bulky search result leaves the prompt after its round: the model gets a stub, Show prompt marks it', async () => {
  await served.page.evaluate((agent) => {
    const tw = (window as any).$tw;
    tw.wiki.addTiddler({ title: 'Orchard ledger', text: `QUINCEWORD ${'quince trees want a sheltered corner. '.repeat(60)}` });
    tw.wiki.addTiddler(new tw.Tiddler(tw.wiki.getTiddler(agent), { 'agent-result-rounds': '{"wiki-search": 1}' }));
  }, AGENT);
  await navigate(served.page, 'Demo chat');
  await chat().waitFor();

  await send('mock:tool=wiki-search {"query":"QUINCEWORD","fullText":true}');
  // The reply right after the search saw it whole.
  expect(toolMessages(served.wiki.mock.requests.at(-1)).some((c: string) => c.includes('quince trees want'))).toBe(true);

  await send('And what next?');
  const last = toolMessages(served.wiki.mock.requests.at(-1));
  expect(last.some((c: string) => c.includes('quince trees want'))).toBe(false);
  expect(last.some((c: string) => c.startsWith('[Expired tool result: wiki-search {"query":"QUINCEWORD","fullText":true}'))).toBe(true);

  await chat().locator('.tc-ai-prompt-show').click();
  const expired = chat().locator('.tc-ai-prompt-preview:not([hidden]) .tc-ai-prompt-expired');
  await expired.waitFor({ state: 'attached' }); // inside the History section, which opens on a click
  expect(await expired.count()).toBe(1);
  expect(await expired.textContent()).toMatch(/^\[expired\] tool: \[Expired tool result: wiki-search/);
  expect(await expired.getAttribute('title')).toMatch(/one-line stub/);
  expect(await chat().locator('.tc-ai-prompt-section[data-section="history"] summary').textContent()).toMatch(/· 1 expired$/);

  // In zh-Hans the mark is Chinese.
  await served.page.evaluate(() => (window as any).$tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' }));
  await chat().locator('.tc-ai-prompt-show').click(); // hide
  await chat().locator('.tc-ai-prompt-show').click(); // and ask again
  await served.page.waitForFunction(() => document.querySelector('.tc-ai-prompt-expired')?.textContent?.startsWith('[已过期]'));
  await served.page.evaluate(() => (window as any).$tw.wiki.deleteTiddler('$:/language'));
  expect(served.errors).toEqual([]);
});

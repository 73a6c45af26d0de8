// The browser's web-fetch: it cannot see resolved addresses, so it refuses by host name before
// any request, checks the URL the browser finally landed on before reading it, and turns a
// cross-origin refusal into a clear message. `fetch` is injected (a page's fetch is the browser's).
import { CORS_MESSAGE, createBrowserWebFetcher } from '../../../src/agent/runner/host/web-fetch-browser';
import { parseAllowHosts } from '../../../src/agent/tools/web-fetcher';

const signal = new AbortController().signal;
const textResponse = (url: string, body: string) =>
  Object.defineProperty(new Response(body, { headers: { 'content-type': 'text/plain' } }), 'url', { value: url });

test('loopback, private and link-local hosts are refused before any request, unless allow-listed', async () => {
  const fetch = jest.fn(async (url: string) => textResponse(url, 'hello'));
  const web = createBrowserWebFetcher({ fetch: fetch as unknown as typeof globalThis.fetch });
  for (const url of ['http://localhost:8080/', 'http://127.0.0.1/', 'http://[::1]/', 'http://192.168.0.1/', 'http://169.254.169.254/']) {
    await expect(web.fetch({ url, allowHosts: [], signal })).rejects.toThrow(/refused/);
  }
  await expect(web.fetch({ url: 'file:///etc/passwd', allowHosts: [], signal })).rejects.toThrow(/http and https URLs only/);
  expect(fetch).not.toHaveBeenCalled();
  const page = await web.fetch({ url: 'http://127.0.0.1:8123/x', allowHosts: parseAllowHosts('127.0.0.1:8123'), signal });
  expect(page.text).toBe('hello');
});

test('a redirect that lands on a private address is refused before its body is read', async () => {
  const web = createBrowserWebFetcher({ fetch: (async () => textResponse('http://10.0.0.5/admin', 'secret')) as unknown as typeof fetch });
  await expect(web.fetch({ url: 'https://example.com/', allowHosts: [], signal })).rejects.toThrow(/10\.0\.0\.5 is a private address/);
});

test('a CORS failure says so', async () => {
  const web = createBrowserWebFetcher({ fetch: (async () => Promise.reject(new TypeError('Failed to fetch'))) as unknown as typeof fetch });
  await expect(web.fetch({ url: 'https://example.com/', allowHosts: [], signal })).rejects.toThrow(CORS_MESSAGE);
});

test("the page's own server is never read, whatever the allow-list says (its API would hand over the hidden chats)", async () => {
  const fetch = jest.fn(async (url: string) => textResponse(url, '[{"title":"$:/ai/messages/Private/000001"}]'));
  const web = createBrowserWebFetcher({ fetch: fetch as unknown as typeof globalThis.fetch, ownOrigin: 'http://127.0.0.1:8080' });
  const allowHosts = parseAllowHosts('127.0.0.1 localhost wiki.example');
  for (const url of ['http://127.0.0.1:8080/recipes/default/tiddlers.json', 'http://localhost:8080/', 'http://127.0.0.2:8080/']) {
    await expect(web.fetch({ url, allowHosts, signal })).rejects.toThrow(/own server/);
  }
  expect(fetch).not.toHaveBeenCalled();
  // Served under a name: that origin; and a redirect that lands there is refused before reading.
  const named = createBrowserWebFetcher({
    fetch: (async () => textResponse('https://wiki.example/recipes/default/tiddlers.json', 'secret')) as unknown as typeof globalThis.fetch,
    ownOrigin: 'https://wiki.example',
  });
  await expect(named.fetch({ url: 'https://example.com/redirect', allowHosts, signal })).rejects.toThrow(/own server/);
  // Another port of the same machine is another server: allow-listed, it is read.
  expect((await web.fetch({ url: 'http://127.0.0.1:8123/x', allowHosts, signal })).text).toContain('Private');
});

/*\
web-fetch in a browser without the server edition. A page cannot see which address a host
name resolves to, nor stop at a redirect and look at it, so this fetcher refuses what it can
tell from the URL: other schemes, `localhost` and *.localhost, and IP literals that are
loopback, private or link-local, unless allow-listed; the URL the browser finally landed on is
checked the same way before anything is read. The page's own server is never read (its API
would hand the model the hidden chats). A private address reached through a public
name is not detected here (the server edition checks resolved addresses). The request goes
without cookies or credentials. Sites that do not allow cross-origin reads (CORS) cannot be
read at all; the message says so. HTML is parsed by DOMParser (an inert document: no script
runs, nothing loads).
\*/
import { isAllowListed, type WebFetcher, type WebFetchRequest, type WebPage } from '../../tools/web-fetcher';
import { addressRefusal, isIpLiteral } from './web-address';
import { WebFetchError, bytesToPage, fetchDeadline, readCapped } from './web-content';

export interface BrowserWebFetcherOptions {
  maxBytes?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** The origin of the page (default: location.origin): the wiki's own server is never read, allow-listed or not. */
  ownOrigin?: string;
}

export const CORS_MESSAGE = 'The site does not allow this browser to read it (CORS); in the server edition web-fetch runs on the server.';

/** Why a URL's host is refused in a browser (by its name alone), or undefined. */
export function browserHostRefusal(url: URL): string | undefined {
  const host = url.hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'a loopback host';
  if (isIpLiteral(host)) return addressRefusal(host);
  return undefined;
}

const LOOPBACK_NAMES = /^(localhost|.*\.localhost|127(\.\d+){3}|\[::1\])$/i;

/** Whether `url` reaches the server the page came from (the same origin, or its port on another loopback name). */
function isOwnServer(url: URL, own: string | undefined): boolean {
  if (!own) return false;
  let page: URL;
  try {
    page = new URL(own);
  } catch {
    return false;
  }
  if (page.protocol !== 'http:' && page.protocol !== 'https:') return false;
  if (url.origin === page.origin) return true;
  const port = (u: URL) => u.port || (u.protocol === 'https:' ? '443' : '80');
  return port(url) === port(page) && LOOPBACK_NAMES.test(url.hostname) && LOOPBACK_NAMES.test(page.hostname);
}

function checkUrl(raw: string, request: WebFetchRequest, own: string | undefined): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebFetchError(`"${raw}" is not a valid URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebFetchError(`web-fetch reads http and https URLs only; "${url.protocol}" is refused.`);
  if (isOwnServer(url, own)) throw new WebFetchError(`web-fetch refused ${url.href}: it is this wiki's own server, which web-fetch never reads.`);
  const why = isAllowListed(url, request.allowHosts) ? undefined : browserHostRefusal(url);
  if (why)
    throw new WebFetchError(
      `web-fetch refused ${url.href}: ${url.hostname} is ${why}. If the user trusts it, they can add "${url.host}" to the web-fetch allow-list in the TiddlyAgent settings. ` +
        '(In a browser only the host name can be checked, not the address it resolves to.)',
    );
  return url;
}

function parseHtmlWithDomParser(html: string, url: string): Document {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const base = doc.createElement('base');
  base.setAttribute('href', url);
  doc.head?.prepend(base);
  return doc;
}

async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

export function createBrowserWebFetcher(options: BrowserWebFetcherOptions = {}): WebFetcher {
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const own = options.ownOrigin ?? (globalThis as { location?: { origin?: string } }).location?.origin;
  return {
    async fetch(request: WebFetchRequest): Promise<WebPage> {
      const url = checkUrl(request.url.trim(), request, own);
      const deadline = fetchDeadline(request.signal, timeoutMs);
      try {
        let response: Response;
        try {
          response = await (options.fetch ?? fetch)(url.href, {
            signal: deadline.signal,
            credentials: 'omit',
            redirect: 'follow',
            mode: 'cors',
            referrerPolicy: 'no-referrer',
          });
        } catch (e) {
          if (deadline.timedOut() || request.signal.aborted) throw e;
          throw new WebFetchError(CORS_MESSAGE);
        }
        const final = checkUrl(response.url || url.href, request, own);
        if (!response.ok) {
          const answer = `${final.href} answered ${response.status} ${response.statusText}`.trim();
          throw new WebFetchError(`${answer}.`);
        }
        const { bytes, truncated } = response.body
          ? await readCapped(chunksOf(response.body), maxBytes, () => deadline.abort())
          : { bytes: new Uint8Array(await response.arrayBuffer()), truncated: false };
        return bytesToPage(final.href, bytes, response.headers.get('content-type'), truncated, maxBytes, parseHtmlWithDomParser);
      } catch (e) {
        throw deadline.failure(e, request.url);
      } finally {
        deadline.end();
      }
    },
  };
}

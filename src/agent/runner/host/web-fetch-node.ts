/*\
web-fetch under Node (the headless command and the server edition). Every hop (the URL and
each redirect, followed by hand up to a limit) is checked: http or https only; the host name
is resolved (all its addresses) and refused when any address is loopback, private or
link-local, unless that host is allowed (on a server: by its owner, owner-policy.ts), and
always when it is the wiki's own server; the connection then goes to the address that was
checked (a pinned `lookup`), so a second DNS answer cannot switch it (DNS rebinding;
outbound-node.ts). The body is read up to a byte cap and the whole fetch has a time limit.
HTML is parsed by jsdom with scripts off and nothing loaded, then made readable
(web-content.ts). Node modules and jsdom are required on first use only.
\*/
import type { IncomingMessage, RequestOptions } from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AllowedHost, WebFetcher, WebFetchRequest, WebPage } from '../../tools/web-fetcher';
import { OutboundRefused, checkUrl, pinnedLookup, resolveChecked } from './outbound-node';
import { WebFetchError, bytesToPage, fetchDeadline, readCapped } from './web-content';

export interface NodeWebFetcherOptions {
  /** Bytes of body read at most (default 2 MB); the rest is not read. */
  maxBytes?: number;
  /** Milliseconds for the whole fetch, redirects included (default 20 s). */
  timeoutMs?: number;
  /** Redirects followed at most (default 5). */
  maxRedirects?: number;
  /**
   * The hosts that may be private, instead of the wiki's allow-list that the tool passes: on
   * a server, the owner's (owner-policy.ts), since any writer can edit a tiddler.
   */
  allowHosts?: () => readonly AllowedHost[];
  /** How a refused host can be allowed, for the message. */
  allowHint?: (url: URL) => string;
}

const USER_AGENT = 'TiddlyAgent web-fetch (+https://tiddlywiki.com)';
const ACCEPT = 'text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,application/json;q=0.8,*/*;q=0.1';

function allowHint(url: URL): string {
  return `If the user trusts it, they can add "${url.host}" to the web-fetch allow-list in the TiddlyAgent settings.`;
}

/** The URL of one hop, refused unless http(s) and free of credentials (outbound-node.ts). */
export function checkScheme(raw: string | URL): URL {
  try {
    return checkUrl(raw);
  } catch (e) {
    throw new WebFetchError(`web-fetch: ${(e as Error).message}`);
  }
}

function parseHtmlWithJsdom(html: string, url: string): Document {
  let jsdom: typeof import('jsdom');
  try {
    jsdom = require('jsdom') as typeof import('jsdom');
  } catch {
    throw new WebFetchError('web-fetch needs the "jsdom" package on this server to read HTML pages (npm install jsdom).');
  }
  // No runScripts: scripts never run; no resources: nothing is loaded; a silent console.
  const dom = new jsdom.JSDOM(html, { url, contentType: 'text/html', virtualConsole: new jsdom.VirtualConsole() });
  return dom.window.document;
}

export function createNodeWebFetcher(options: NodeWebFetcherOptions = {}): WebFetcher {
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const maxRedirects = options.maxRedirects ?? 5;

  return {
    async fetch(request: WebFetchRequest): Promise<WebPage> {
      const deadline = fetchDeadline(request.signal, timeoutMs);
      try {
        let url = checkScheme(request.url.trim());
        const seen = new Set<string>();
        for (let hop = 0; ; hop++) {
          seen.add(url.href);
          const response = await get(url, request, deadline.signal);
          const status = response.statusCode ?? 0;
          const location = response.headers.location;
          if (status >= 300 && status < 400 && location) {
            response.destroy();
            const next = checkScheme(new URL(location, url));
            if (seen.has(next.href)) throw new WebFetchError(`${request.url} redirects in a loop (${url.href} → ${next.href}).`);
            if (hop >= maxRedirects) throw new WebFetchError(`${request.url} redirects more than ${maxRedirects} times.`);
            url = next;
            continue;
          }
          if (status < 200 || status >= 300) {
            response.destroy();
            const answer = `${url.href} answered ${status} ${response.statusMessage ?? ''}`.trim();
            throw new WebFetchError(`${answer}.`);
          }
          const encoding = String(response.headers['content-encoding'] ?? 'identity').toLowerCase();
          if (encoding !== 'identity') {
            response.destroy();
            throw new WebFetchError(`${url.href} sent its content compressed (${encoding}) although none was asked for.`);
          }
          const contentType = response.headers['content-type'] ?? null;
          const { bytes, truncated } = await readCapped(response, maxBytes, () => response.destroy());
          return bytesToPage(url.href, bytes, contentType, truncated, maxBytes, parseHtmlWithJsdom);
        }
      } catch (e) {
        throw deadline.failure(e, request.url);
      } finally {
        deadline.end();
        deadline.abort(); // ends any socket still open (a cut body)
      }
    },
  };

  /** One GET to a checked address (outbound-node.ts): resolved, refused unless public or allowed, connected to that address. */
  async function get(url: URL, request: WebFetchRequest, signal: AbortSignal): Promise<IncomingMessage> {
    const allowHosts = options.allowHosts ? options.allowHosts() : request.allowHosts;
    let pinned: LookupAddress;
    try {
      pinned = await resolveChecked(url, { allowHosts, allowHint: options.allowHint ?? allowHint });
    } catch (e) {
      throw e instanceof OutboundRefused ? new WebFetchError(`web-fetch: ${e.message}`) : e;
    }
    const http = require(url.protocol === 'https:' ? 'node:https' : 'node:http') as typeof import('node:http');
    const options_: RequestOptions = {
      method: 'GET',
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port || undefined,
      path: url.pathname + url.search,
      headers: { 'user-agent': USER_AGENT, accept: ACCEPT, 'accept-encoding': 'identity' },
      signal,
      agent: false,
      // Connect to the address that was checked, whatever DNS answers now.
      lookup: pinnedLookup(pinned),
    };
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = http.request(options_, resolve);
      req.on('error', reject);
      req.end();
    });
  }
}

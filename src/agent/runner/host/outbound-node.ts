/*\
Where a process on Node.js (the server edition, the headless command) may connect: the one
address check for every call the wiki's content can point somewhere (a provider's base URL,
Test the connection, an MCP server's URL, an embedding model, web-fetch), so a writer cannot
use the server as a proxy into its own network (issue 23).

A host name is resolved (all its addresses); a loopback, private, link-local or otherwise
non-public address is refused unless the owner allows that host (owner-policy.ts
`allowHosts`, or an origin one of its keys is bound to); the wiki's own server is refused
always, allow-listed or not. The connection then goes to the address that was checked (a
pinned lookup), so a second DNS answer cannot switch it (DNS rebinding).

`createOutboundFetch` is a fetch with these rules for the providers and MCP: one request, no
redirect followed (an answer 3xx is returned as it is), the body streamed.
\*/
import type { LookupAddress } from 'node:dns';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { ProviderError } from '../../providers/errors';
import type { FetchFn } from '../../providers/types';
import { isAllowListed, type AllowedHost } from '../../tools/web-fetcher';
import { addressRefusal } from './web-address';

export interface OutboundRules {
  /** Hosts that may be private (the owner's `allowHosts`; in web-fetch, its allow-list). */
  allowHosts: readonly AllowedHost[];
  /** Origins that may be private too (those the owner bound a key to). */
  allowOrigins?: ReadonlySet<string>;
  /** The hint after a refusal: how this host can be allowed. */
  allowHint(url: URL): string;
}

/** A call refused by the address rules: a provider error of its own kind, which is never retried. */
export class OutboundRefused extends ProviderError {
  constructor(message: string) {
    super({ kind: 'refused', message });
  }
}

let ownPorts: number[] = [];

/** The port(s) this process's wiki server listens on (the server plugin, once it listens). */
export function setOwnServerPorts(ports: number[]): void {
  ownPorts = ports.filter((p) => p > 0);
}

/** Whether `address:port` is this process's own wiki server (its port on any address of this machine). */
function isOwnServer(address: string, port: number): boolean {
  if (!ownPorts.includes(port)) return false;
  const why = addressRefusal(address);
  if (why && /loopback|unspecified/.test(why)) return true;
  const os = require('node:os') as typeof import('node:os');
  const bare = address.replace(/^::ffff:/i, '').toLowerCase();
  return Object.values(os.networkInterfaces()).some((list) => list?.some((i) => i.address.toLowerCase() === bare));
}

/** The URL of a call, refused unless http(s) and free of credentials. */
export function checkUrl(raw: string | URL): URL {
  let url: URL;
  try {
    url = typeof raw === 'string' ? new URL(raw) : raw;
  } catch {
    throw new OutboundRefused(`"${String(raw)}" is not a valid URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefused(`Calls go to http and https URLs only; "${url.protocol}" is refused.`);
  if (url.username || url.password) throw new OutboundRefused(`${url.origin}: a user name or password in the URL is refused.`);
  return url;
}

/** Resolve the URL's host and check every address; the address to connect to. */
export async function resolveChecked(url: URL, rules: OutboundRules): Promise<LookupAddress> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const dns = require('node:dns') as typeof import('node:dns');
  let addresses: LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    addresses = [];
  }
  if (!addresses.length) throw new OutboundRefused(`The host "${host}" could not be found.`);
  const allowed = isAllowListed(url, rules.allowHosts) || !!rules.allowOrigins?.has(url.origin);
  for (const a of addresses) {
    if (isOwnServer(a.address, port)) throw new OutboundRefused(`${url.origin} is this wiki's own server, which calls from the wiki never reach.`);
    const why = allowed ? undefined : addressRefusal(a.address);
    if (why)
      throw new OutboundRefused(
        `${url.href} is refused: ${host === a.address ? host : `${host} resolves to ${a.address}, which`} is ${why}. ${rules.allowHint(url)}`,
      );
  }
  return addresses[0]!;
}

/** A `lookup` for http.request that always answers the address that was checked. */
export function pinnedLookup(pinned: LookupAddress): RequestOptions['lookup'] {
  return ((_name: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (opts?.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  }) as RequestOptions['lookup'];
}

/** A fetch that calls only what `rules()` allows, to the checked address. */
export function createOutboundFetch(rules: () => OutboundRules): FetchFn {
  return async (input, init = {}) => {
    const url = checkUrl(String(input));
    const pinned = await resolveChecked(url, rules());
    const headers = new Headers(init.headers);
    headers.delete('accept-encoding');
    const body =
      init.body === undefined || init.body === null
        ? undefined
        : typeof init.body === 'string'
          ? init.body
          : init.body instanceof Uint8Array
            ? init.body
            : String(init.body);
    const http = require(url.protocol === 'https:' ? 'node:https' : 'node:http') as typeof import('node:http');
    const { Readable } = require('node:stream') as typeof import('node:stream');
    const options: RequestOptions = {
      method: init.method ?? 'GET',
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port || undefined,
      path: url.pathname + url.search,
      headers: { ...Object.fromEntries(headers), 'accept-encoding': 'gzip, deflate, br' },
      signal: init.signal ?? undefined,
      agent: false,
      lookup: pinnedLookup(pinned),
    };
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = http.request(options, resolve);
      req.on('error', (e) => reject(init.signal?.aborted ? init.signal.reason : new TypeError(`fetch failed: ${e.message}`, { cause: e })));
      req.end(body);
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, v);
    }
    const status = res.statusCode ?? 502;
    const empty = status === 204 || status === 304 || init.method === 'HEAD';
    const stream = empty ? null : (Readable.toWeb(decoded(res, responseHeaders)) as ReadableStream<Uint8Array>);
    if (empty) res.resume();
    return new Response(stream, { status, statusText: res.statusMessage ?? '', headers: responseHeaders });
  };
}

/** The body, decompressed as its content-encoding says (fetch does the same). */
function decoded(res: IncomingMessage, headers: Headers): NodeJS.ReadableStream & import('node:stream').Readable {
  const zlib = require('node:zlib') as typeof import('node:zlib');
  const encoding = (headers.get('content-encoding') ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) return res;
  headers.delete('content-encoding');
  headers.delete('content-length');
  res.on('error', (e) => decoder.destroy(e));
  return res.pipe(decoder);
}

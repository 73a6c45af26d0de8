/*\
MCP over HTTP (`mcp-url`): the two transports and how one is chosen. Streamable HTTP is the
current one; servers written before it speak the older HTTP+SSE transport (a GET opens an
event stream whose first `endpoint` event names the URL to POST messages to). The field
`mcp-transport` picks one (`streamable-http` or `sse`); left empty, Streamable HTTP is tried
first and, when the server answers its POST with an HTTP 4xx other than 401/403/429 (an old
server has no such route), the old transport is tried, as the MCP specification's
backwards-compatibility section describes.
Every request of either transport goes through the host's fetch (under Node: the owner's
address rules, outbound-node.ts), and the SSE transport sends only to the origin of `mcp-url`:
an endpoint a server announces on another host (or port, or scheme) is refused before any
request is made to it, so a server cannot send the client, and the token, elsewhere.
\*/
import type { FetchFn } from '../../providers/types';

export type HttpTransportKind = 'streamable-http' | 'sse';

interface Transport {
  close(): Promise<void>;
}

type TransportClass = new (url: URL, options?: { requestInit?: { headers?: Record<string, string> }; fetch?: FetchFn }) => Transport;

/** The SDK's HTTP transports (SSE is absent from an older mcp-browser plugin). */
export interface HttpTransports {
  StreamableHTTPClientTransport: TransportClass;
  SSEClientTransport?: TransportClass;
}

/** The transports to try for a server, in order. */
export function transportOrder(chosen: HttpTransportKind | undefined): HttpTransportKind[] {
  return chosen ? [chosen] : ['streamable-http', 'sse'];
}

/** A transport of `kind` to `url`, with the bearer token if any, its requests through `fetch`. */
export function httpTransport(sdk: HttpTransports, kind: HttpTransportKind, url: URL, token: string | undefined, fetch?: FetchFn): Transport {
  const requestInit = token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {};
  if (kind === 'streamable-http') return new sdk.StreamableHTTPClientTransport(url, { ...requestInit, ...(fetch ? { fetch } : {}) });
  if (!sdk.SSEClientTransport) throw new Error('this MCP client has no SSE transport: update the plugin $:/plugins/tiddlyagent/mcp-browser.');
  return new sdk.SSEClientTransport(url, { ...requestInit, fetch: withinOrigin(url, fetch) });
}

/** Whether a failed Streamable HTTP start means "this server has no such route": try SSE. */
export function fallsBackToSse(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  const status = typeof code === 'number' ? code : Number(/\bHTTP (\d{3})\b/.exec(String((error as Error | undefined)?.message ?? ''))?.[1]);
  return status >= 400 && status < 500 && ![401, 403, 429].includes(status);
}

/** A fetch that refuses any URL outside `base`'s origin (an endpoint the server announced elsewhere). */
export function withinOrigin(base: URL, fetch?: FetchFn): FetchFn {
  const send: FetchFn = fetch ?? ((url, init) => globalThis.fetch(url, init));
  return (url, init) => {
    const target = new URL(String(url), base);
    if (target.origin !== base.origin)
      return Promise.reject(
        new Error(`the server named ${target.origin} as the address to send its messages to, not ${base.origin} (its own): refused, nothing was sent there.`),
      );
    return send(url, init);
  };
}

/*\
The web APIs a turn needs (fetch, AbortController, TextDecoder, streams). Browsers have
them; under Node, TiddlyWiki runs plugin modules in a vm context without them, so they are
borrowed, non-enumerably, from Node's main context.
\*/
const WEB_GLOBALS = [
  'fetch',
  'Response',
  'Request',
  'Headers',
  'TextDecoder',
  'TextEncoder',
  'AbortController',
  'AbortSignal',
  'ReadableStream',
  'URL',
  // the MCP SDK's client (runner/mcp-sdk.ts)
  'TransformStream',
  'WritableStream',
  'TextDecoderStream',
  'Event',
  'EventTarget',
  'DOMException',
  'URLSearchParams',
  'crypto',
  'atob',
  'btoa',
];

export function ensureWebGlobals(): void {
  if (typeof fetch === 'function' && typeof AbortController === 'function' && typeof TransformStream === 'function') return;
  const main = require('node:vm').runInThisContext('globalThis') as Record<string, unknown>;
  for (const name of WEB_GLOBALS) {
    if (!(name in globalThis)) Object.defineProperty(globalThis, name, { value: main[name], writable: true, configurable: true, enumerable: false });
  }
}

/*\
The port web-fetch reads outside pages through (the runner lends one: runner/host/web-fetch-node.ts
on Node, runner/host/web-fetch-browser.ts in a browser), and the user's allow-list of hosts that
may be private. The fetcher enforces the address rules; this module only says which hosts the
user allowed. Pure: no DOM, no Node.
\*/
import { CONFIG } from '../store/config';

/** The user's allow-list: space-separated `host` or `host:port` entries (a system tiddler the model cannot write). */
export const WEB_ALLOW_HOSTS = CONFIG.webAllowHosts;

export interface WebFetchRequest {
  url: string;
  /** Parsed allow-list entries (parseAllowHosts): these hosts may be loopback, private or link-local. */
  allowHosts: readonly AllowedHost[];
  /** The call's signal (Stop, the tool's timeout). */
  signal: AbortSignal;
}

export interface WebPage {
  /** The URL the content came from, after redirects. */
  url: string;
  title: string;
  /** Readable Markdown (HTML) or the text itself (plain text, JSON, Markdown); no script left. */
  text: string;
  /** Things the reader should know (cut at the size cap, bytes replaced when decoding). */
  notes: string[];
}

export interface WebFetcher {
  /** Resolves to the page, or rejects with an Error whose message is meant for the model and the user. */
  fetch(request: WebFetchRequest): Promise<WebPage>;
}

export interface AllowedHost {
  /** Lower-case host name or IP literal, IPv6 without brackets. */
  host: string;
  /** Absent: any port of that host. */
  port?: number;
}

/**
 * `127.0.0.1:8123 intranet.example [::1]:8080 https://wiki.local/` → entries. Schemes, paths
 * and a trailing dot are tolerated; entries that are not a host are ignored.
 */
export function parseAllowHosts(text: string | undefined): AllowedHost[] {
  const out: AllowedHost[] = [];
  for (let word of (text ?? '').split(/[\s,]+/)) {
    word = word
      .trim()
      .toLowerCase()
      .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
      .replace(/[/?#].*$/, '');
    if (!word) continue;
    const m = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(word) ?? /^([^:[\]\s]+?)\.?(?::(\d{1,5}))?$/.exec(word);
    if (!m) {
      // A bare IPv6 address (several colons, no brackets, no port).
      const v6 = /^[0-9a-f:.]+$/.test(word) && word.split(':').length > 2 ? ipv6(word) : undefined;
      if (v6) out.push({ host: v6 });
      continue;
    }
    const port = m[2] === undefined ? undefined : Number(m[2]);
    if (port !== undefined && (port < 1 || port > 65535)) continue;
    const host = m[1]!.includes(':') ? ipv6(m[1]!) : m[1]!;
    if (!host) continue;
    out.push(port === undefined ? { host } : { host, port });
  }
  return out;
}

/** An IPv6 address as URLs spell it (compressed, lower case, no brackets), or undefined. */
function ipv6(word: string): string | undefined {
  try {
    return new URL(`http://[${word}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/** Whether a URL's host (and port, default 80/443) is on the allow-list. */
export function isAllowListed(url: URL, allowHosts: readonly AllowedHost[]): boolean {
  const host = url.hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return allowHosts.some((a) => a.host === host && (a.port === undefined || a.port === port));
}

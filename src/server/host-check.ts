/*\
The Host check: a web page the user merely visits can point its own name at 127.0.0.1 (DNS
rebinding) and then talk to a server on the user's machine as if it were that site, with no
cross-origin rule in the way; the browser still sends the page's name in `Host`. So every
request (TiddlyWiki's own routes, the /agent/ routes, /mcp) is answered only when its Host
names this server: the listen `host`, a loopback name (localhost, *.localhost), an IP literal
(a rebinding page cannot make a browser send one for its own name), this machine's name, or a
name the owner lists (`hosts` in the TiddlyAgent configuration; `*` allows any, behind a proxy
that checks it).
\*/
import os from 'node:os';

/** Why a request with this Host header is refused, or undefined. */
export function hostRefusal(header: string | undefined, listenHost: string | undefined, ownerHosts: readonly string[]): string | undefined {
  const value = (header ?? '').trim().toLowerCase();
  if (!value) return 'the request names no host (the Host header is missing).';
  const name = (/^\[[^\]]*\]/.exec(value)?.[0] ?? value.replace(/:\d*$/, '')).replace(/\.$/, '');
  if (isIpLiteral(name)) return undefined;
  if (name === 'localhost' || name.endsWith('.localhost')) return undefined;
  if (listenHost && name === listenHost.trim().toLowerCase()) return undefined;
  if (name === os.hostname().toLowerCase()) return undefined;
  if (ownerHosts.includes('*') || ownerHosts.includes(name) || ownerHosts.includes(value)) return undefined;
  return `this server does not answer to the name "${name}". If that is a name of this server, its owner lists it in "hosts" of the TiddlyAgent configuration (TIDDLYAGENT_CONFIG); a page that points its own name at this server (DNS rebinding) is refused this way.`;
}

function isIpLiteral(name: string): boolean {
  if (/^\[[0-9a-f:.]+\]$/.test(name)) return true;
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(name);
}

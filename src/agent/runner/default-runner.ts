/*\
The runner for this wiki: one LocalRunner over $tw.wiki, created on first use. In a browser
API keys come from TiddlyWiki's password store (localStorage, never a tiddler); under Node
from the environment variable named by the profile's `api-key-name`.
\*/
import { createTiddlyWikiPort } from './tiddlywiki-port';
import { ensureWebGlobals } from './host';
import { LocalRunner } from './local-runner';

let runner: LocalRunner | undefined;

export function getRunner(): LocalRunner {
  if (runner) return runner;
  ensureWebGlobals();
  const browser = !!$tw.browser;
  runner = new LocalRunner({
    wiki: createTiddlyWikiPort($tw.wiki),
    fetch: (url, init) => fetch(url, init),
    getApiKey: (name) => (browser ? $tw.utils.getPassword(name) : process.env[name]) || undefined,
    keyHint: browser
      ? 'Enter it in Control Panel → Settings → TiddlyAgent; it is kept in this browser only, never in a tiddler.'
      : 'Set the environment variable "$name$" for the TiddlyWiki server.',
  });
  return runner;
}

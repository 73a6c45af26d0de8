/*\
Says so where the user sees it when the wiki's TiddlyWiki core is older than the plugin needs:
its templates use TiddlyWiki 5.3.2's `<%if%>` syntax and `data-*` attributes on core widgets,
which an older core shows as text or drops, so chats and settings would not work. An alert (the
core's dismissible box at the top of the page) names both versions; nothing else is changed.
CI tests 5.3.8 and 5.4.1 (test/integration/tiddlywiki-versions.test.ts, test/e2e/tiddlywiki-5.3.test.ts).
\*/
import { lingo } from './lingo';

export const name = 'tiddlyagent-core-version';
export const platforms = ['browser'];
export const after = ['story'];
export const synchronous = true;

/** The oldest TiddlyWiki core the plugin works in (its plugin.info says the same in `core-version`). */
export const MINIMUM_CORE = '5.3.2';

export function startup(): void {
  if ($tw.utils.checkVersions($tw.version, MINIMUM_CORE)) return;
  new $tw.utils.Logger('TiddlyAgent').alert(lingo($tw.wiki, 'CoreTooOld').replace('$version$', $tw.version).replace('$minimum$', MINIMUM_CORE));
}

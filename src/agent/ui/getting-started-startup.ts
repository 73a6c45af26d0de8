/*\
Opens the getting-started guide once after the plugin is installed: at the top of the story
river, the first time a wiki starts without $:/config/tiddlyagent/getting-started-shown set to
`yes`, which it then sets. The setting is a tiddler, so it is saved with the wiki (a single
file with its next save; a served wiki syncs it at once) and the guide does not come back. In a
served wiki the page first learns from the server whether this user may write: a reader, who
could neither save the setting nor set a provider up, is not shown it. The guide stays one click
away in Control Panel → Plugins → TiddlyAgent.
\*/
import { CONFIG, configValue } from '../store/config';

export const name = 'tiddlyagent-getting-started';
export const platforms = ['browser'];
export const after = ['story'];
export const synchronous = true;

export const GUIDE = '$:/plugins/tiddlyagent/agent/getting-started';
/** Written by TiddlyWiki's syncer once the server said whether this user may write. */
const READ_ONLY = '$:/status/IsReadOnly';

export function startup(): void {
  if (configValue($tw.wiki, CONFIG.gettingStartedShown) === 'yes') return;
  const served = !!($tw.syncer as { syncadaptor?: { getStatus?: unknown } } | undefined)?.syncadaptor?.getStatus;
  if (!served) {
    show();
    return;
  }
  const decide = () => configValue($tw.wiki, READ_ONLY) !== 'yes' && show();
  if ($tw.wiki.tiddlerExists(READ_ONLY)) return void decide();
  const onChange = (changes: unknown) => {
    if (!(READ_ONLY in (changes as Record<string, unknown>))) return;
    $tw.wiki.removeEventListener('change', onChange);
    decide();
  };
  $tw.wiki.addEventListener('change', onChange);
}

function show(): void {
  if (configValue($tw.wiki, CONFIG.gettingStartedShown) === 'yes') return;
  $tw.wiki.addTiddler({ title: CONFIG.gettingStartedShown, text: 'yes' });
  new $tw.Story({ wiki: $tw.wiki }).navigateTiddler(GUIDE);
}

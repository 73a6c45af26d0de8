/*\
Start-up, browser and Node.js: bring the wiki's chats, agents and journals to the plugin's data
format (store/data-format.ts) before anything reads them: before the runner restores turns,
before the server edition starts and before a command such as --agent-send runs. A page served
by the server edition leaves it to the server, which owns the tiddlers.
\*/
import { migrateData } from '../../store/data-format';
import { servedByServerEdition } from '../server-edition';

export const name = 'tiddlyagent-data-format';
export const platforms = ['browser', 'node'];
export const after = ['startup'];
export const before = ['commands', 'tiddlyagent-runner', 'tiddlyagent-server'];
export const synchronous = true;

export function startup(): void {
  if (servedByServerEdition()) return;
  const wiki = $tw.wiki;
  const result = migrateData({
    getFields: (title) => {
      const fields = wiki.getTiddler(title)?.getFieldStrings() as Record<string, string> | undefined;
      return fields;
    },
    putTiddler: (fields) => wiki.addTiddler(new $tw.Tiddler(fields)),
    filter: (expression) => wiki.filterTiddlers(expression),
  });
  const log = new $tw.utils.Logger('TiddlyAgent');
  if (result.newer)
    log.log(`This wiki's chats were saved in data format ${result.from}, newer than this plugin's: update TiddlyAgent to work on them. Nothing was changed.`);
  else if (result.applied.length) log.log(`Chats brought from data format ${result.from} to ${result.to}: ${result.applied.join('; ')}`);
}

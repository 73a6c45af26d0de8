/*\
The content type of model replies, `text/vnd.tiddlyagent.reply`: wikitext under the safe
rule set of safe-render.ts. Reply tiddlers carry it, so wherever one is shown or transcluded
(`{{$:/ai/messages/…}}` in any tiddler, the story river, a template) it renders without
widgets, transclusion, images, styles or classes, exactly as inside the chat.
\*/
import type { parseSafeWikitext } from '$:/plugins/tiddlyagent/agent/lib.js';
import { lib } from './library';

/** The type's name, also ChatStore's REPLY_TYPE (the library is not loaded just to read it). */
const REPLY_TYPE = 'text/vnd.tiddlyagent.reply';

class ReplyParser {
  readonly tree: unknown[];
  readonly source: string;
  readonly type: string;

  constructor(type: string, text: string, options: { wiki: Parameters<typeof parseSafeWikitext>[0] }) {
    this.tree = lib().parseSafeWikitext(options.wiki, text).tree;
    this.source = text;
    this.type = type;
  }
}

// Saved by the Node.js server as a text file with a .meta file, like other non-wikitext types.
$tw.config.contentTypeInfo[REPLY_TYPE] ??= { encoding: 'utf8', extension: '.txt', flags: [], deserializerType: 'text/plain' } as never;

export { ReplyParser as 'text/vnd.tiddlyagent.reply' };

/*\
The content type of model replies, `text/vnd.tiddlyagent.reply`: wikitext under the safe
rule set of safe-render.ts. Reply tiddlers carry it, so wherever one is shown or transcluded
(`{{$:/ai/messages/…}}` in any tiddler, the story river, a template) it renders without
widgets, transclusion, images, styles or classes, exactly as inside the chat.
\*/
import type { parseSafeWikitext } from '$:/plugins/tiddlyagent/agent/page.js';
import { page } from './library';

/** The type's name, also ChatStore's REPLY_TYPE (the library is not loaded just to read it). */
const REPLY_TYPE = 'text/vnd.tiddlyagent.reply';

class ReplyParser {
  readonly tree: unknown[];
  readonly source: string;
  readonly type: string;

  constructor(type: string, text: string, options: { wiki: Parameters<typeof parseSafeWikitext>[0]; parseAsInline?: boolean }) {
    // No `_canonical_uri` lazy loading either: a reply's text is what renders.
    this.tree = page().parseSafeWikitext(options.wiki, text ?? '', { parseAsInline: options.parseAsInline }).tree;
    this.source = text;
    this.type = type;
  }
}

// The Node.js server's filesystem adaptor saves a tiddler of this type as a `.txt` file plus a
// `.meta` file holding its fields, as it does for every type but text/vnd.tiddlywiki (only that
// goes into `.tid` files, short of a user's own $:/config/FileSystemExtensions); without this
// entry the text file would get no extension. Set directly rather than with
// $tw.utils.registerFileType, which would also map the `.txt` extension to this type.
$tw.config.contentTypeInfo[REPLY_TYPE] ??= { encoding: 'utf8', extension: '.txt', flags: [], deserializerType: 'text/plain' } as never;

export { ReplyParser as 'text/vnd.tiddlyagent.reply' };

/*\
The change view's library: what it needs to show a change, the text diff (tools/text-diff.ts)
and the flags of active content (tools/active-content.ts). A chat needs it only once it shows
a change (an approval card, a turn's "N tiddlers changed"), so showing a chat does not compile
it. UI modules require it as `$:/plugins/tiddlyagent/agent/diff.js` (ui/library.ts diff()).
\*/
export { findActiveContent } from './tools/active-content';
export { changeRegions, diffText, diffWords, type Piece, type Region } from './tools/text-diff';

/*\
Filter operator `aisearch`: tiddlers ranked by the text index for the words in its operand,
best first (runner/host/text-index-host.ts; search/text-index.ts says how words match). First in
a run it searches the whole index, without system tiddlers unless the suffix is `system`;
after other steps it ranks within their results (`[tag[Journal]aisearch[trip]]`). The suffix
`title` matches titles only (`aisearch:title,system`). The index holds no chats, messages or
other tiddlers hidden from the agent, so they never flood the results (DESIGN 4).

While the index's first build runs (a big wiki; it starts with the first search) the result is
empty and $:/temp/tiddlyagent/text-index says how far the build is. The library, and so the
index, is loaded only when the filter first runs.
\*/
import { lib } from './library';

type Source = ((iterator: (tiddler: unknown, title: string) => void) => void) & object;

export function aisearch(source: Source, operator: { operand: string; suffix?: string }, options: { wiki: { each: unknown } }): string[] {
  const query = operator.operand.trim();
  if (!query) return [];
  const suffixes = (operator.suffix ?? '').split(',');
  // TiddlyWiki hands the first step of a run the wiki's own iterator: the whole index is wanted.
  let within: Set<string> | undefined;
  if (source !== options.wiki.each) {
    within = new Set();
    source((_tiddler, title) => within!.add(title));
  }
  const ranked = lib()
    .createTiddlyWikiPort(options.wiki as never)
    .rankedSearch(query, { titlesOnly: suffixes.includes('title'), includeSystem: !!within || suffixes.includes('system'), within });
  return ranked.ready ? ranked.hits.map((hit) => hit.title) : [];
}

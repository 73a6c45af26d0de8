/*\
TiddlyWiki's tag index, kept across changes that cannot touch it. The core's TagSubIndexer
throws its whole index away on every tiddler change, so the next [tag[…]] lookup (the page
template, the keyboard manager, global procedures, the agent's tools) walks every tiddler
again: 100-400 ms per change on a 100,000-tiddler wiki, several times per agent round, since
each message and status is a change. A change whose tiddler had no tags before and has none
after, is no shadow, and names no tag (whose `list` would order that tag's titles) cannot
alter any tag's titles or their order, so the index is kept. Every other change, and every
full rebuild, goes through the core as before and moves the generation on, which the agent
view (view-indexes.ts) uses to keep its own tag index as long.
\*/
import type { Wiki } from 'tiddlywiki';

export const name = 'tiddlyagent-tag-index';
export const after = ['load-modules'];
export const before = ['startup'];
export const synchronous = true;

interface TagIndexer {
  update(descriptor: UpdateDescriptor): void;
  rebuild(): void;
  tiddlyagentGeneration?: number;
}
interface Side {
  tiddler?: { fields: { tags?: unknown } };
  shadow: boolean;
}
interface UpdateDescriptor {
  old: Side;
  new: Side;
}

const untagged = (side: Side): boolean => {
  const tags = side.tiddler?.fields.tags;
  return !side.shadow && (!Array.isArray(tags) || tags.length === 0);
};

function indexerOf(wiki: Wiki): TagIndexer | null {
  return ((wiki as unknown as { getIndexer?(name: string): unknown }).getIndexer?.('TagIndexer') as TagIndexer | null) ?? null;
}

/** Install the keeper on a wiki's tag indexer (once; a wiki without one is left alone). */
export function keepTagIndex(wiki: Wiki): void {
  const indexer = indexerOf(wiki);
  if (!indexer || indexer.tiddlyagentGeneration !== undefined) return;
  indexer.tiddlyagentGeneration = 0;
  const update = indexer.update.bind(indexer);
  const rebuild = indexer.rebuild.bind(indexer);
  // Every title used as a tag (shadows too), made at the first change and only ever added to:
  // a title that stopped being a tag still counts, which is merely cautious.
  let tagNames: Set<string> | undefined;
  const namesTag = (title: string): boolean => {
    if (!tagNames) {
      const names = new Set<string>();
      const add = (tiddler: { fields: { tags?: unknown } }) => {
        for (const tag of (tiddler.fields.tags as string[] | undefined) ?? []) names.add(tag);
      };
      (wiki as unknown as { eachShadowPlusTiddlers(cb: (t: { fields: { tags?: unknown } }) => void): void }).eachShadowPlusTiddlers(add);
      (wiki as unknown as { eachShadow(cb: (t: { fields: { tags?: unknown } }) => void): void }).eachShadow(add);
      tagNames = names;
    }
    return tagNames.has(title);
  };
  indexer.update = (descriptor) => {
    const title = ((descriptor.new.tiddler ?? descriptor.old.tiddler)?.fields as { title?: string } | undefined)?.title;
    if (title !== undefined && untagged(descriptor.old) && untagged(descriptor.new) && !namesTag(title)) return;
    for (const tag of (descriptor.new.tiddler?.fields.tags as string[] | undefined) ?? []) tagNames?.add(tag);
    indexer.tiddlyagentGeneration! += 1;
    update(descriptor);
  };
  indexer.rebuild = () => {
    tagNames = undefined;
    indexer.tiddlyagentGeneration! += 1;
    rebuild();
  };
}

/**
 * A number that changes whenever the wiki's tag lists may have changed (undefined when the
 * keeper is not installed: then every change counts, as the caller's own cache rules say).
 */
export function tagGeneration(wiki: Wiki): number | undefined {
  return indexerOf(wiki)?.tiddlyagentGeneration;
}

/** Startup (browser and Node): the page, the keyboard manager and every filter get the kept index. */
export function startup(): void {
  keepTagIndex($tw.wiki);
}

/*\
The indexes of a view of the wiki (wiki-view.ts). The agent view answers from the wiki's own
indexes with hidden titles taken out of every lookup, except the tag index, which it keeps
itself; a sandbox has none, since the wiki's indexes do not know its layer, so every filter
operator iterates it instead.
\*/
import { tagGeneration } from '../startup/tag-index';
import type { Each, Tiddler, ViewWiki } from './wiki-view';

const ITERATORS = ['each', 'eachShadow', 'eachTiddlerPlusShadows', 'eachShadowPlusTiddlers'] as const;

/** An indexer whose lookups (at any depth, e.g. `subIndexers[3].lookup`) pass their results through `keep`. */
function withoutHidden<T extends object>(indexer: T, keep: (result: unknown) => unknown): T {
  return new Proxy(indexer, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if (typeof value === 'function') return (...args: unknown[]) => keep((value as (...a: unknown[]) => unknown).apply(target, args));
      if (value && typeof value === 'object') return withoutHidden(value, keep);
      return value;
    },
  });
}

/** The agent view's indexes: the wiki's, with hidden titles taken out of every lookup; its own tag index. */
export function hideFromIndexes(view: ViewWiki, b: ViewWiki, shows: (title: string, tiddler: Tiddler | undefined) => boolean): void {
  const keep = (titles: unknown) => (Array.isArray(titles) ? titles.filter((t) => typeof t !== 'string' || shows(t, b.getTiddler(t))) : titles);
  // Not the tag index: it keeps each tag's list sorted by the whole wiki (a hidden tag
  // tiddler's `list`, a hidden title in a `list-before`), an order the view must not show.
  view.getIndexer = ((name: string) => {
    const indexer = name === 'TagIndexer' ? null : (b.getIndexer(name) as object | null);
    return indexer && withoutHidden(indexer, keep);
  }) as never;
  // Indexers also hang lookups on the iterators (each.byTag, each.byField, …): the wiki's,
  // filtered, except byTag, which the view indexes itself (viewTagIndex).
  for (const name of ITERATORS) {
    const own = b[name] as unknown as Record<string, unknown>;
    const iterator = view[name] as unknown as Record<string, unknown>;
    for (const key of Object.keys(own)) {
      if (key.startsWith('by') && key !== 'byTag' && typeof own[key] === 'function')
        iterator[key] = (...args: unknown[]) => keep((own[key] as (...a: unknown[]) => unknown)(...args));
    }
    iterator.byTag = viewTagIndex(view, b, name);
  }
}

/**
 * `byTag` of one of the view's iterators, indexed as TiddlyWiki's tag index does (the titles
 * the iterator yields per tag, sorted by the tag's list), rebuilt only when the wiki's tag
 * lists may have changed; without it [tag[]] would compare every tiddler with every tagged one.
 */
function viewTagIndex(view: ViewWiki, b: ViewWiki, name: (typeof ITERATORS)[number]): (tag: string) => string[] {
  let tagIndex: { generation: unknown; byTag: Map<string, { titles: string[]; sorted: boolean }> } | undefined;
  return (tag: string) => {
    const cache = view as unknown as { globalCache?: unknown; sortByList(titles: string[], list: string): string[] };
    // Kept as long as the wiki's tag lists are (tag-index.ts); without the keeper, until the next change.
    const generation = tagGeneration(b) ?? (b as unknown as { globalCache?: unknown }).globalCache;
    let current = tagIndex;
    if (!current || current.generation !== generation) {
      const byTag = new Map<string, { titles: string[]; sorted: boolean }>();
      (view[name] as Each)((tiddler, title) => {
        for (const t of (tiddler.fields.tags as string[] | undefined) ?? []) {
          const entry = byTag.get(t);
          if (entry) entry.titles.push(title);
          else byTag.set(t, { titles: [title], sorted: false });
        }
      });
      tagIndex = { generation, byTag };
      current = tagIndex;
    }
    const entry = current.byTag.get(tag);
    if (!entry) return [];
    if (!entry.sorted) {
      entry.titles = cache.sortByList(entry.titles, tag);
      entry.sorted = true;
    }
    return entry.titles.slice(0);
  };
}

/** A sandbox's indexes: none, so every operator iterates the view; and the one lookup TiddlyWiki has no fallback for without its index. */
export function indexLayer(view: ViewWiki): void {
  view.getIndexer = () => null;
  (view as unknown as { getTiddlerBacktranscludes(title: string): string[] }).getTiddlerBacktranscludes = (target) => {
    const found: string[] = [];
    const transcludes = view as unknown as { getTiddlerTranscludes(title: string): string[] };
    view.each((_tiddler, title) => {
      if (transcludes.getTiddlerTranscludes(title).includes(target)) found.push(title);
    });
    return found;
  };
}

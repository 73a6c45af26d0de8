/*\
Views of a TiddlyWiki wiki, the wiki objects the agent's tools work through
(tiddlywiki-port.ts):

- the agent view: the wiki without the tiddlers hidden from the agent (tools/visibility.ts).
  Not a filter on results but a wiki object in which they do not exist: lookups, the four
  iterators, shadow queries, indexes (view-indexes.ts) and every cache (the filter cache, the
  global cache, parse caches) are the view's own, so no result, count, yes/no answer or
  error of a filter, search or render depends on them;
- the sandbox: a copy-on-write layer over a view. Writes land in the layer, so a tool's
  change can be computed (and rendered, filtered, relinked) exactly as it would land and
  then be checked before it touches the wiki.

In both, the password store does not exist while they render or filter (secret-free.ts).

Both inherit from the wiki (Object.create) and override the closures that TiddlyWiki's
Wiki constructor defines per instance; every prototype method then works through them.
\*/
import type { Wiki } from 'tiddlywiki';
import { isHiddenFromAgent } from '../../tools/visibility';
import { secretFree } from './secret-free';
import { keepTagIndex } from '../startup/tag-index';
import { hideFromIndexes, indexLayer } from './view-indexes';

export type Tiddler = NonNullable<ReturnType<Wiki['getTiddler']>>;
export type Each = (callback: (tiddler: Tiddler, title: string) => void) => void;
/** A sandbox's layer: the tiddlers it wrote, and null for those it deleted. */
export type Overlay = Map<string, Tiddler | null>;

/** The per-instance closures of TiddlyWiki's Wiki that a view overrides. */
export interface ViewWiki extends Wiki {
  each: Each;
  eachShadow: Each;
  eachTiddlerPlusShadows: Each;
  eachShadowPlusTiddlers: Each;
  allTitles(): string[];
  allShadowTitles(): string[];
  tiddlerExists(title: string): boolean;
  isShadowTiddler(title: string): boolean;
  getShadowSource(title: string): string | null;
  getIndexer(name: string): null;
  getChangeCount(title: string): number;
}

/** Which tiddlers a view holds: each title as the view has it, and whether it shows. */
export interface Visibility {
  /** The tiddler under `title` before hiding: the layer's, else the wiki's. */
  lookup(title: string): Tiddler | undefined;
  shows(title: string, tiddler: Tiddler | undefined): tiddler is Tiddler;
  /** A shadow's own tiddler (not a real tiddler that overrides it), from its plugin. */
  shadowOf(title: string): Tiddler | undefined;
  /** Whether the view has `title` as a shadow. */
  isShadow(title: string): boolean;
}

/** The wiki objects made here (whose caches are their own), each with the function that keeps its caches current. */
const views = new WeakMap<Wiki, () => void>();
const agentViews = new WeakMap<Wiki, Wiki>();
/** The wiki under each view made here, and whether the view is a sandbox (has a layer of its own). */
const viewBases = new WeakMap<Wiki, { base: Wiki; layered: boolean }>();

/** A view's caches are dropped whenever the wiki underneath changed, so nothing cached outlives a change. */
export function freshView<W extends Wiki>(wiki: W): W {
  views.get(wiki)?.();
  return wiki;
}

function resetCaches<W extends Wiki>(view: W): W {
  const caches = view as unknown as Record<string, unknown>;
  caches.globalCache = Object.create(null);
  caches.caches = Object.create(null);
  if (!Object.hasOwn(view, 'filterCache')) {
    caches.filterCache = Object.create(null);
    caches.filterCacheCount = 0;
  }
  return view;
}

/** The wiki whose text index answers for `wiki` (itself, or the wiki under its views), and whether a sandbox is on the way. */
export function indexedWiki(wiki: Wiki): { indexed: Wiki; layered: boolean } {
  const view = viewBases.get(wiki);
  if (!view) return { indexed: wiki, layered: false };
  const under = indexedWiki(view.base);
  return { indexed: under.indexed, layered: under.layered || view.layered };
}

/** The wiki without the tiddlers hidden from the agent (one view per wiki, caches reset per call). */
export function agentView(wiki: Wiki): Wiki {
  let view = agentViews.get(wiki);
  if (!view) {
    keepTagIndex(wiki);
    view = filteredView(wiki, (title, tiddler) => !isHiddenFromAgent(title, tiddler.fields as Record<string, unknown>));
    agentViews.set(wiki, view);
  }
  return view;
}

/**
 * A view of `base` in which only tiddlers that pass `visible` exist, and which writes into
 * `overlay` (when given) instead of `base`.
 */
export function filteredView(base: Wiki, visible: (title: string, tiddler: Tiddler) => boolean, overlay?: Overlay): Wiki {
  const b = base as ViewWiki;
  const view = Object.create(base) as ViewWiki;
  viewBases.set(view, { base, layered: !!overlay });
  secretFree(view);
  const seen = visibility(b, visible, overlay);
  defineLookups(view, b, seen, overlay);
  if (overlay) layeredIterators(view, b, seen, overlay);
  else hidingIterators(view, b, seen);
  view.allTitles = () => {
    const titles: string[] = [];
    view.each((_t, title) => titles.push(title));
    return titles;
  };
  view.allShadowTitles = () => b.allShadowTitles().filter((title) => view.isShadowTiddler(title));
  if (overlay) {
    indexLayer(view);
    views.set(view, () => resetCaches(view));
  } else {
    hideFromIndexes(view, b, seen.shows);
    // The wiki renews its global cache object at every change: that tells when to drop the view's.
    let generation: unknown;
    views.set(view, () => {
      const current = (b as unknown as { globalCache?: unknown }).globalCache;
      if (current !== generation) resetCaches(view);
      generation = current;
    });
  }
  resetCaches(view);
  defineWrites(view, b, overlay);
  return view;
}

function visibility(b: ViewWiki, visible: (title: string, tiddler: Tiddler) => boolean, overlay: Overlay | undefined): Visibility {
  // Tiddler objects never change, so whether one is visible is worked out once (a sort of a big
  // wiki looks tiddlers up millions of times).
  const memo = new WeakMap<Tiddler, boolean>();
  const shadowTiddlers = new WeakMap<object, Tiddler>();
  const shows = (title: string, tiddler: Tiddler | undefined): tiddler is Tiddler => {
    if (!tiddler) return false;
    let shown = memo.get(tiddler);
    if (shown === undefined) {
      shown = visible(title, tiddler);
      memo.set(tiddler, shown);
    }
    return shown;
  };
  const shadowOf = (title: string): Tiddler | undefined => {
    const source = b.getShadowSource(title);
    const fields = source
      ? (b as unknown as { getPluginInfo(t: string): { tiddlers?: Record<string, object> } | undefined }).getPluginInfo(source)?.tiddlers?.[title]
      : undefined;
    if (!fields) return undefined;
    let tiddler = shadowTiddlers.get(fields);
    if (!tiddler) {
      tiddler = new $tw.Tiddler(fields as Record<string, unknown>) as Tiddler;
      shadowTiddlers.set(fields, tiddler);
    }
    return tiddler;
  };
  return {
    lookup: (title) => (overlay?.has(title) ? (overlay.get(title) ?? undefined) : b.getTiddler(title)),
    shows,
    shadowOf,
    // A shadow is judged by its own tiddler: a hidden override does not hide it, nor a visible one reveal a hidden shadow.
    isShadow: (title) => {
      if (!b.isShadowTiddler(title)) return false;
      const own = shadowOf(title);
      return own ? shows(title, own) : shows(title, b.getTiddler(title));
    },
  };
}

/** Single-title lookups: a tiddler, whether it exists, is a shadow, and its change count. */
function defineLookups(view: ViewWiki, b: ViewWiki, seen: Visibility, overlay: Overlay | undefined): void {
  const { lookup, shows, shadowOf, isShadow } = seen;
  view.getTiddler = ((title: string) => {
    if (!title) return undefined;
    const tiddler = lookup(title);
    if (shows(title, tiddler)) return tiddler;
    // A hidden tiddler overriding a visible shadow: the view has just the shadow.
    return !overlay && tiddler && isShadow(title) ? shadowOf(title) : undefined;
  }) as Wiki['getTiddler'];
  view.tiddlerExists = (title) => {
    if (overlay?.has(title)) return shows(title, overlay.get(title) ?? undefined);
    return b.tiddlerExists(title) && shows(title, b.getTiddler(title));
  };
  view.isShadowTiddler = (title) => isShadow(title);
  view.getShadowSource = (title) => (view.isShadowTiddler(title) ? b.getShadowSource(title) : null);
  // [haschanged[]] and <<changecount>>: a hidden tiddler has never changed.
  view.getChangeCount = (title: string) => {
    const tiddler = lookup(title) ?? ({ fields: { title } } as unknown as Tiddler);
    return shows(title, tiddler) ? (b.getChangeCount(title) as number) : 0;
  };
}

/** A sandbox's iterators: the wiki's, with the layer's tiddlers in place of theirs and its new ones last. */
function layeredIterators(view: ViewWiki, b: ViewWiki, seen: Visibility, overlay: Overlay): void {
  const iterate =
    (baseEach: Each, append: 'none' | 'tiddlers' | 'tiddlers+shadows'): Each =>
    (callback) => {
      baseEach((tiddler, title) => {
        const t = overlay.has(title) ? (overlay.get(title) ?? undefined) : tiddler;
        if (seen.shows(title, t)) callback(t, title);
      });
      if (append === 'none') return;
      for (const [title, t] of [...overlay]) {
        const inBase = b.tiddlerExists(title) || (append === 'tiddlers+shadows' && b.isShadowTiddler(title));
        if (!inBase && seen.shows(title, t ?? undefined)) callback(t!, title);
      }
    };
  view.each = iterate(b.each, 'tiddlers');
  view.eachShadow = iterate(b.eachShadow, 'none');
  view.eachTiddlerPlusShadows = iterate(b.eachTiddlerPlusShadows, 'tiddlers+shadows');
  view.eachShadowPlusTiddlers = iterate(b.eachShadowPlusTiddlers, 'tiddlers+shadows');
}

/** The agent view's iterators: the visible tiddlers, and shadows as the view has them (each visible shadow, under its override when that is visible). */
function hidingIterators(view: ViewWiki, b: ViewWiki, seen: Visibility): void {
  const { shows, shadowOf, isShadow } = seen;
  const baseEach = b.each;
  view.each = (callback) => {
    baseEach((tiddler, title) => {
      if (shows(title, tiddler)) callback(tiddler, title);
    });
  };
  const eachShadow: Each = (callback) => {
    for (const title of b.allShadowTitles()) {
      if (!isShadow(title)) continue;
      const real = b.tiddlerExists(title) ? b.getTiddler(title) : undefined;
      callback(real && shows(title, real) ? real : (shadowOf(title) ?? b.getTiddler(title)!), title);
    }
  };
  view.eachShadow = eachShadow;
  view.eachTiddlerPlusShadows = (callback) => {
    view.each(callback);
    for (const title of b.allShadowTitles()) if (isShadow(title) && !view.tiddlerExists(title)) callback(shadowOf(title) ?? b.getTiddler(title)!, title);
  };
  view.eachShadowPlusTiddlers = (callback) => {
    eachShadow(callback);
    view.each((tiddler, title) => {
      if (!isShadow(title)) callback(tiddler, title);
    });
  };
}

/** A sandbox writes into its layer (and drops its caches); the agent view is read-only. */
function defineWrites(view: ViewWiki, b: ViewWiki, overlay: Overlay | undefined): void {
  if (overlay) {
    view.addTiddler = ((tiddler: Tiddler | Record<string, unknown>) => {
      const t = tiddler instanceof $tw.Tiddler ? (tiddler as Tiddler) : (new $tw.Tiddler(tiddler as Record<string, unknown>) as Tiddler);
      overlay.set(t.fields.title as string, t);
      resetCaches(view);
    }) as Wiki['addTiddler'];
    view.deleteTiddler = ((title: string) => {
      if (b.tiddlerExists(title)) overlay.set(title, null);
      else overlay.delete(title);
      resetCaches(view);
    }) as Wiki['deleteTiddler'];
  } else {
    view.addTiddler = (() => {
      throw new Error('This view of the wiki is read-only.');
    }) as Wiki['addTiddler'];
    view.deleteTiddler = view.addTiddler as unknown as Wiki['deleteTiddler'];
  }
}

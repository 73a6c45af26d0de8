/*\
WikiPort over a real TiddlyWiki wiki object, and the two views the agent's tools work
through:

- the agent view: the wiki without the tiddlers hidden from the agent (tools/visibility.ts).
  Not a filter on results but a wiki object in which they do not exist: lookups, the four
  iterators, shadow queries, indexes (switched off, so operators fall back to iterating)
  and every cache (the filter cache, the global cache, parse caches) are the view's own, so
  no result, count, yes/no answer or error of a filter, search or render depends on them;
- the sandbox: a copy-on-write layer over a view. Writes land in the layer, so a tool's
  change can be computed (and rendered, filtered, relinked) exactly as it would land and
  then be checked before it touches the wiki.

In both, the password store does not exist while they render or filter (secret-free.ts).

Both inherit from the wiki (Object.create) and override the closures that TiddlyWiki's
Wiki constructor defines per instance; every prototype method then works through them.
\*/
import type { Wiki } from 'tiddlywiki';
import type { SandboxPort, TiddlerFields, WikiPort } from '../store/wiki-port';
import { isHiddenFromAgent } from '../tools/visibility';
import { plainTextOf } from './plain-text';
import { secretFree } from './secret-free';
import { keepTagIndex, tagGeneration } from './tag-index';
import { textIndexOf } from './text-index-host';

type Tiddler = NonNullable<ReturnType<Wiki['getTiddler']>>;
type Each = (callback: (tiddler: Tiddler, title: string) => void) => void;
type Overlay = Map<string, Tiddler | null>;

interface ViewWiki extends Wiki {
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

export function createTiddlyWikiPort(wiki: Wiki): WikiPort {
  return portOver(wiki, { agentWiki: () => agentView(wiki) });
}

interface PortOptions {
  /** The wiki that renders for the agent see (this port's own when it is already hiding). */
  agentWiki(): Wiki;
  /** The sandbox's layer, when this port is a sandbox. */
  layer?: Overlay;
  readOnly?: boolean;
}

function portOver(wiki: Wiki, options: PortOptions): WikiPort {
  /** A view's caches are dropped whenever the wiki underneath changed, so nothing cached outlives a change. */
  const fresh = <W extends Wiki>(w: W): W => {
    views.get(w)?.();
    return w;
  };
  const writable = () => {
    if (options.readOnly) throw new Error('The agent view of the wiki is read-only; writes go through the write gate.');
    return wiki;
  };
  const port: WikiPort = {
    getFields(title) {
      const tiddler = wiki.getTiddler(title);
      return tiddler ? (tiddler.getFieldStrings() as TiddlerFields) : undefined;
    },
    shadowFields(title) {
      const source = wiki.isShadowTiddler(title) ? wiki.getShadowSource(title) : null;
      const plugin = source
        ? (wiki as unknown as { getPluginInfo(t: string): { tiddlers?: Record<string, Record<string, unknown>> } | undefined }).getPluginInfo(source)
        : undefined;
      const fields = plugin?.tiddlers?.[title];
      return fields ? (new $tw.Tiddler({ ...fields, title }).getFieldStrings() as TiddlerFields) : undefined;
    },
    putTiddler(fields) {
      writable().addTiddler(new $tw.Tiddler(fields));
    },
    deleteTiddler(title) {
      writable().deleteTiddler(title);
    },
    filter(expression, variables) {
      const w = fresh(wiki);
      return w.filterTiddlers(expression, variableWidget(w, variables));
    },
    renderPlainText(title, variables = {}) {
      // Rendering for the agent (system prompt, attachments, wiki-read) never sees hidden
      // tiddlers, whichever port asks: a transclusion cannot pull them in.
      const w = fresh(options.agentWiki());
      // Global procedures are only visible through an explicit import (as in the page template).
      const text = `\\import [subfilter{$:/core/config/GlobalImportFilter}]\n${dataVariables(variables)}<$transclude $tiddler=<<tiddlyagent-source>> $mode=block/>`;
      const parser = w.parseText('text/vnd.tiddlywiki', text, {});
      const widget = w.makeWidget(parser, { document: $tw.fakeDocument, variables: { ...prefixed(variables), 'tiddlyagent-source': title } });
      const container = $tw.fakeDocument.createElement('div');
      widget.render(container as unknown as Element, null);
      return plainTextOf(container as unknown as Parameters<typeof plainTextOf>[0]);
    },
    runActions(actions, variables = {}) {
      const w = fresh(writable());
      const refusedMessages: string[] = [];
      // A parent of its own, not the root widget: messages such as tm-http-request (which can
      // send a stored password) or tm-navigate never reach a handler.
      const isolated = w.makeWidget({ tree: [] }, {}) as unknown as { dispatchEvent(event: { type: string }): boolean };
      isolated.dispatchEvent = (event) => {
        refusedMessages.push(event.type);
        return false;
      };
      const host = w.makeWidget({ tree: [] }, { parentWidget: isolated as never }) as unknown as {
        invokeActionString(actions: string, triggering: unknown, event: unknown, variables: Record<string, string>): void;
      };
      host.invokeActionString(
        `\\import [subfilter{$:/core/config/GlobalImportFilter}]\n${dataVariables(variables)}${actions}`,
        null,
        null,
        prefixed(variables),
      );
      return { refusedMessages };
    },
    renderHtml(title) {
      return fresh(wiki).renderTiddler('text/html', title, { importPageMacros: true } as object);
    },
    renameTiddler(from, to, relink) {
      const w = writable();
      if (relink) (w as unknown as { renameTiddler(a: string, b: string): void }).renameTiddler(from, to);
      else {
        const tiddler = w.getTiddler(from);
        if (!tiddler) return;
        w.addTiddler(new $tw.Tiddler(tiddler, { title: to }));
        w.deleteTiddler(from);
      }
    },
    search(query, options) {
      const found = fresh(wiki).search(query, options.titlesOnly ? { field: 'title' } : {}) as string[];
      const out: string[] = [];
      for (const title of found) {
        if (options.exclude?.(title)) continue;
        out.push(title);
        if (options.limit !== undefined && out.length >= options.limit) break;
      }
      return out;
    },
    rankedSearch(query, searchOptions) {
      // A view answers from the index of the wiki under it, which holds only what the agent
      // sees. A sandbox's layer is in no index: its hits are those of the wiki under it that
      // the sandbox still has (a tiddler it changed ranks as it was; one it made is not found).
      const { indexed, layered } = indexedWiki(wiki);
      const ranked = textIndexOf(indexed).search(query, searchOptions);
      return layered && ranked.ready ? { ready: true, hits: ranked.hits.filter((hit) => wiki.tiddlerExists(hit.title)) } : ranked;
    },
    now() {
      return $tw.utils.stringifyDate(new Date());
    },
    agentView() {
      const view = options.agentWiki();
      if (view === wiki) return port;
      agent ??= portOver(view, { agentWiki: () => view, readOnly: true });
      return agent;
    },
    sandbox() {
      const layer: Overlay = new Map();
      const view = filteredView(wiki, () => true, layer);
      const hiding = options.agentWiki() === wiki;
      const sandbox = portOver(view, { agentWiki: () => (hiding ? view : agentView(view)), layer }) as SandboxPort;
      sandbox.changes = () => {
        const out: Record<string, TiddlerFields | null> = {};
        for (const [title, tiddler] of layer) out[title] = tiddler ? (tiddler.getFieldStrings() as TiddlerFields) : null;
        return out;
      };
      return sandbox;
    },
  };
  let agent: WikiPort | undefined;
  return port;
}

// ---------------------------------------------------------------------------------------------
// Arguments as data

/** Action wikitext sees each argument through a function, whose transclusion shows text. */
function dataVariables(variables: Record<string, string>): string {
  return Object.keys(variables)
    .map((name) => `\\function ${name}() [<tiddlyagent-arg-${name}>]\n`)
    .join('');
}

function prefixed(variables: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(variables).map(([k, v]) => [`tiddlyagent-arg-${k}`, v]));
}

/** Variables for a filter run, on a widget of the same (view) wiki, not the root widget's. */
function variableWidget(wiki: Wiki, variables: Record<string, string> | undefined) {
  if (!variables) return undefined;
  const root = wiki.makeWidget({ tree: [] }, {}) as unknown as { makeFakeWidgetWithVariables(v: Record<string, string>): unknown };
  return root.makeFakeWidgetWithVariables(variables) as Parameters<Wiki['filterTiddlers']>[1];
}

// ---------------------------------------------------------------------------------------------
// Views

function resetCaches<W extends Wiki>(view: W): W {
  const caches = view as unknown as Record<string, unknown>;
  caches.globalCache = Object.create(null);
  caches.caches = Object.create(null);
  if (!Object.prototype.hasOwnProperty.call(view, 'filterCache')) {
    caches.filterCache = Object.create(null);
    caches.filterCacheCount = 0;
  }
  return view;
}

/** The wiki objects made here (whose caches are their own), each with the function that keeps its caches current. */
const views = new WeakMap<Wiki, () => void>();
const agentViews = new WeakMap<Wiki, Wiki>();
/** The wiki under each view made here, and whether the view is a sandbox (has a layer of its own). */
const viewBases = new WeakMap<Wiki, { base: Wiki; layered: boolean }>();

/** The wiki whose text index answers for `wiki` (itself, or the wiki under its views), and whether a sandbox is on the way. */
function indexedWiki(wiki: Wiki): { indexed: Wiki; layered: boolean } {
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

/**
 * A view of `base` in which only tiddlers that pass `visible` exist, and which writes into
 * `overlay` (when given) instead of `base`.
 */
function filteredView(base: Wiki, visible: (title: string, tiddler: Tiddler) => boolean, overlay?: Overlay): Wiki {
  const b = base as ViewWiki;
  const view = Object.create(base) as ViewWiki;
  viewBases.set(view, { base, layered: !!overlay });
  secretFree(view);
  const lookup = (title: string): Tiddler | undefined => {
    if (overlay?.has(title)) return overlay.get(title) ?? undefined;
    return b.getTiddler(title);
  };
  // Tiddler objects never change, so whether one is visible is worked out once (a sort of a big
  // wiki looks tiddlers up millions of times).
  const memo = new WeakMap<Tiddler, boolean>();
  const shows = (title: string, tiddler: Tiddler | undefined): tiddler is Tiddler => {
    if (!tiddler) return false;
    let seen = memo.get(tiddler);
    if (seen === undefined) memo.set(tiddler, (seen = visible(title, tiddler)));
    return seen;
  };
  /** Wrap one of the wiki's iterators: overlaid tiddlers replace theirs, new ones come last. */
  const iterate =
    (baseEach: Each, append: 'none' | 'tiddlers' | 'tiddlers+shadows'): Each =>
    (callback) => {
      baseEach((tiddler, title) => {
        const t = overlay?.has(title) ? (overlay.get(title) ?? undefined) : tiddler;
        if (shows(title, t)) callback(t, title);
      });
      if (!overlay || append === 'none') return;
      for (const [title, t] of [...overlay]) {
        const inBase = b.tiddlerExists(title) || (append === 'tiddlers+shadows' && b.isShadowTiddler(title));
        if (!inBase && shows(title, t ?? undefined)) callback(t!, title);
      }
    };
  /** A shadow's own tiddler (not a real tiddler that overrides it), from its plugin. */
  const shadowOf = (title: string): Tiddler | undefined => {
    const source = b.getShadowSource(title);
    const fields = source
      ? (b as unknown as { getPluginInfo(t: string): { tiddlers?: Record<string, object> } | undefined }).getPluginInfo(source)?.tiddlers?.[title]
      : undefined;
    if (!fields) return undefined;
    let tiddler = shadowTiddlers.get(fields);
    if (!tiddler) shadowTiddlers.set(fields, (tiddler = new $tw.Tiddler(fields as Record<string, unknown>) as Tiddler));
    return tiddler;
  };
  const shadowTiddlers = new WeakMap<object, Tiddler>();
  /** A shadow is judged by its own tiddler: a hidden override does not hide it, nor a visible one reveal a hidden shadow. */
  const isShadow = (title: string) => {
    if (!b.isShadowTiddler(title)) return false;
    const own = shadowOf(title);
    return own ? shows(title, own) : shows(title, b.getTiddler(title));
  };
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
  view.each = iterate(b.each, 'tiddlers');
  if (overlay) {
    view.eachShadow = iterate(b.eachShadow, 'none');
    view.eachTiddlerPlusShadows = iterate(b.eachTiddlerPlusShadows, 'tiddlers+shadows');
    view.eachShadowPlusTiddlers = iterate(b.eachShadowPlusTiddlers, 'tiddlers+shadows');
  } else {
    // Shadows as the view has them: each visible shadow, under its override when that is visible.
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
  view.allTitles = () => {
    const titles: string[] = [];
    view.each((_t, title) => titles.push(title));
    return titles;
  };
  view.allShadowTitles = () => b.allShadowTitles().filter((title) => view.isShadowTiddler(title));
  // [haschanged[]] and <<changecount>>: a hidden tiddler has never changed.
  view.getChangeCount = (title: string) => {
    const tiddler = lookup(title) ?? ({ fields: { title } } as unknown as Tiddler);
    return shows(title, tiddler) ? (b.getChangeCount(title) as number) : 0;
  };
  if (overlay) {
    // The wiki's indexes do not know the layer: every operator iterates the view instead.
    view.getIndexer = () => null;
    // The one lookup TiddlyWiki has no fallback for without its index.
    (view as unknown as { getTiddlerBacktranscludes(title: string): string[] }).getTiddlerBacktranscludes = (target) => {
      const found: string[] = [];
      const transcludes = view as unknown as { getTiddlerTranscludes(title: string): string[] };
      view.each((_tiddler, title) => {
        if (transcludes.getTiddlerTranscludes(title).includes(target)) found.push(title);
      });
      return found;
    };
    views.set(view, () => resetCaches(view));
  } else {
    // The wiki's own indexes, with hidden titles taken out of every lookup.
    const keep = (titles: unknown) => (Array.isArray(titles) ? titles.filter((t) => typeof t !== 'string' || shows(t, b.getTiddler(t))) : titles);
    // Not the tag index: it keeps each tag's list sorted by the whole wiki (a hidden tag
    // tiddler's `list`, a hidden title in a `list-before`), an order the view must not show.
    view.getIndexer = ((name: string) => {
      const indexer = name === 'TagIndexer' ? null : (b.getIndexer(name) as object | null);
      return indexer && withoutHidden(indexer, keep);
    }) as never;
    // Indexers also hang lookups on the iterators (each.byTag, each.byField, …): the wiki's,
    // filtered, except byTag, which the view indexes itself as TiddlyWiki's tag index does
    // (the titles each iterator yields per tag, sorted by the tag's list), rebuilt only when the
    // wiki's tag lists may have changed; without it [tag[]] would compare every tiddler with
    // every tagged one.
    for (const name of ['each', 'eachShadow', 'eachTiddlerPlusShadows', 'eachShadowPlusTiddlers'] as const) {
      const own = b[name] as unknown as Record<string, unknown>;
      const iterator = view[name] as unknown as Record<string, unknown>;
      for (const key of Object.keys(own)) {
        if (key.startsWith('by') && key !== 'byTag' && typeof own[key] === 'function')
          iterator[key] = (...args: unknown[]) => keep((own[key] as (...a: unknown[]) => unknown)(...args));
      }
      let tagIndex: { generation: unknown; byTag: Map<string, { titles: string[]; sorted: boolean }> } | undefined;
      iterator.byTag = (tag: string) => {
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
          current = tagIndex = { generation, byTag };
        }
        const index = current.byTag;
        const entry = index.get(tag);
        if (!entry) return [];
        if (!entry.sorted) {
          entry.titles = cache.sortByList(entry.titles, tag);
          entry.sorted = true;
        }
        return entry.titles.slice(0);
      };
    }
    // The wiki renews its global cache object at every change: that tells when to drop the view's.
    let seen: unknown;
    views.set(view, () => {
      const generation = (b as unknown as { globalCache?: unknown }).globalCache;
      if (generation !== seen) resetCaches(view);
      seen = generation;
    });
  }
  resetCaches(view);
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
  return view;
}

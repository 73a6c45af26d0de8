/*\
WikiPort over a real TiddlyWiki wiki object: the store's and the tools' one way to the wiki
(store/wiki-port.ts). Its agent view and sandboxes are ports over views of the wiki
(wiki-view.ts): the agent view without the tiddlers hidden from the agent, read-only; a
sandbox, a copy-on-write layer whose changes are checked before they touch the wiki.
Wikitext runs through wikitext-run.ts, arguments as data.
\*/
import type { Wiki } from 'tiddlywiki';
import type { SandboxPort, TiddlerFields, WikiPort } from '../../store/wiki-port';
import { isPdfTiddler } from '../../tools/documents';
import { documentText } from './pdf-text';
import { textIndexOf } from './text-index-host';
import { agentView, filteredView, freshView, indexedWiki, type Overlay } from './wiki-view';
import { renderPlainText, runActions, variableWidget } from './wikitext-run';

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
  const writable = () => {
    if (options.readOnly) throw new Error('The agent view of the wiki is read-only; writes go through the write gate.');
    return wiki;
  };
  let agent: WikiPort | undefined;
  const port: WikiPort = {
    getFields(title) {
      const tiddler = wiki.getTiddler(title);
      return tiddler ? (tiddler.getFieldStrings() as TiddlerFields) : undefined;
    },
    shadowFields: (title) => shadowFields(wiki, title),
    putTiddler(fields) {
      writable().addTiddler(new $tw.Tiddler(fields));
    },
    deleteTiddler(title) {
      writable().deleteTiddler(title);
    },
    filter(expression, variables) {
      const w = freshView(wiki);
      return w.filterTiddlers(expression, variableWidget(w, variables));
    },
    // Rendering for the agent (system prompt, attachments, wiki-read) never sees hidden
    // tiddlers, whichever port asks: a transclusion cannot pull them in.
    renderPlainText: (title, variables = {}) => renderPlainText(freshView(options.agentWiki()), title, variables),
    runActions: (actions, variables = {}) => runActions(freshView(writable()), actions, variables),
    renderHtml(title) {
      return freshView(wiki).renderTiddler('text/html', title, { importPageMacros: true } as object);
    },
    renameTiddler: (from, to, relink) => renameTiddler(writable(), from, to, relink),
    search: (query, searchOptions) => searchTitles(freshView(wiki), query, searchOptions),
    rankedSearch(query, searchOptions) {
      // A view answers from the index of the wiki under it, which holds only what the agent
      // sees. A sandbox's layer is in no index: its hits are those of the wiki under it that
      // the sandbox still has (a tiddler it changed ranks as it was; one it made is not found).
      const { indexed, layered } = indexedWiki(wiki);
      const ranked = textIndexOf(indexed).search(query, searchOptions);
      return layered && ranked.ready ? { ready: true, hits: ranked.hits.filter((hit) => wiki.tiddlerExists(hit.title)) } : ranked;
    },
    async documentText(title) {
      const fields = port.getFields(title);
      return fields && isPdfTiddler(fields) ? documentText(fields) : undefined;
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
    sandbox: () => sandboxOver(wiki, options),
  };
  return port;
}

/** A sandbox over the port's wiki: its writes land in a layer of its own, listed by `changes`. */
function sandboxOver(wiki: Wiki, options: PortOptions): SandboxPort {
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
}

/** A shadow tiddler's own fields (from its plugin), whether or not a real tiddler overrides it. */
function shadowFields(wiki: Wiki, title: string): TiddlerFields | undefined {
  const source = wiki.isShadowTiddler(title) ? wiki.getShadowSource(title) : null;
  const plugin = source
    ? (wiki as unknown as { getPluginInfo(t: string): { tiddlers?: Record<string, Record<string, unknown>> } | undefined }).getPluginInfo(source)
    : undefined;
  const fields = plugin?.tiddlers?.[title];
  return fields ? (new $tw.Tiddler({ ...fields, title }).getFieldStrings() as TiddlerFields) : undefined;
}

function renameTiddler(wiki: Wiki, from: string, to: string, relink: boolean): void {
  if (relink) (wiki as unknown as { renameTiddler(a: string, b: string): void }).renameTiddler(from, to);
  else {
    const tiddler = wiki.getTiddler(from);
    if (!tiddler) return;
    wiki.addTiddler(new $tw.Tiddler(tiddler, { title: to }));
    wiki.deleteTiddler(from);
  }
}

/** TiddlyWiki's own search, its titles in order up to `limit`, without the excluded ones. */
function searchTitles(wiki: Wiki, query: string, options: Parameters<WikiPort['search']>[1]): string[] {
  const found = wiki.search(query, options.titlesOnly ? { field: 'title' } : {}) as string[];
  const out: string[] = [];
  for (const title of found) {
    if (options.exclude?.(title)) continue;
    out.push(title);
    if (options.limit !== undefined && out.length >= options.limit) break;
  }
  return out;
}

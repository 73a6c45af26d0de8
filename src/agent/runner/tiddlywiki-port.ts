/*\
WikiPort over a real TiddlyWiki wiki object.
\*/
import type { Wiki } from 'tiddlywiki';
import type { TiddlerFields, WikiPort } from '../store/wiki-port';
import { isHiddenFromAgent } from '../tools/visibility';
import { plainTextOf } from './plain-text';

export function createTiddlyWikiPort(wiki: Wiki): WikiPort {
  return {
    getFields(title) {
      const tiddler = wiki.getTiddler(title);
      return tiddler ? (tiddler.getFieldStrings() as TiddlerFields) : undefined;
    },
    putTiddler(fields) {
      wiki.addTiddler(new $tw.Tiddler(fields));
    },
    deleteTiddler(title) {
      wiki.deleteTiddler(title);
    },
    filter(expression, variables) {
      const widget = variables ? $tw.rootWidget.makeFakeWidgetWithVariables(variables) : undefined;
      return wiki.filterTiddlers(expression, widget);
    },
    renderPlainText(title, variables = {}) {
      // Global procedures are only visible through an explicit import (as in the page template).
      const text = '\\import [subfilter{$:/core/config/GlobalImportFilter}]\n<$transclude $tiddler=<<tiddlyagent-source>> $mode=block/>';
      // Rendered through a view of the wiki without hidden tiddlers: a transclusion cannot
      // pull a chat, a message or a request's headers into what the agent reads.
      const view = agentView(wiki);
      const parser = view.parseText('text/vnd.tiddlywiki', text, {});
      const widget = view.makeWidget(parser, { document: $tw.fakeDocument, variables: { ...variables, 'tiddlyagent-source': title } });
      const container = $tw.fakeDocument.createElement('div');
      widget.render(container as unknown as Element, null);
      return plainTextOf(container as unknown as Parameters<typeof plainTextOf>[0]);
    },
    runActions(actions, variables = {}) {
      const before: Record<string, TiddlerFields | null> = {};
      const note = (title: unknown) => {
        if (typeof title === 'string' && !(title in before)) before[title] = (wiki.getTiddler(title)?.getFieldStrings() as TiddlerFields | undefined) ?? null;
      };
      // Every write goes through these two; watch them while the actions run (synchronously).
      const w = wiki as unknown as Record<'addTiddler' | 'deleteTiddler', (...args: unknown[]) => unknown>;
      const { addTiddler, deleteTiddler } = w;
      w.addTiddler = (tiddler, ...rest) => {
        const t = tiddler as { fields?: { title?: unknown }; title?: unknown } | undefined;
        note(t?.fields?.title ?? t?.title);
        return addTiddler.call(wiki, tiddler, ...rest);
      };
      w.deleteTiddler = (title, ...rest) => {
        note(title);
        return deleteTiddler.call(wiki, title, ...rest);
      };
      try {
        const text = `\\import [subfilter{$:/core/config/GlobalImportFilter}]\n${actions}`;
        wiki.invokeActionString(text, null, variables, { parentWidget: $tw.rootWidget });
      } finally {
        w.addTiddler = addTiddler;
        w.deleteTiddler = deleteTiddler;
      }
      return before;
    },
    renderHtml(title) {
      return wiki.renderTiddler('text/html', title, { importPageMacros: true } as object);
    },
    renameTiddler(from, to, relink) {
      if (relink) (wiki as unknown as { renameTiddler(a: string, b: string): void }).renameTiddler(from, to);
      else {
        const tiddler = wiki.getTiddler(from);
        if (!tiddler) return;
        wiki.addTiddler(new $tw.Tiddler(tiddler, { title: to }));
        wiki.deleteTiddler(from);
      }
    },
    search(query, options) {
      const found = wiki.search(query, options.titlesOnly ? { field: 'title' } : {}) as string[];
      const out: string[] = [];
      for (const title of found) {
        if (options.exclude?.(title)) continue;
        out.push(title);
        if (options.limit !== undefined && out.length >= options.limit) break;
      }
      return out;
    },
    now() {
      return $tw.utils.stringifyDate(new Date());
    },
  };
}

/**
 * The wiki as the agent may see it when rendering: lookups of hidden tiddlers (see
 * tools/visibility.ts) find nothing. Widgets and most filter runs look tiddlers up through
 * `this.getTiddler`, so an object that inherits from the wiki and overrides it is enough.
 */
function agentView(wiki: Wiki): Wiki {
  const view = Object.create(wiki) as Wiki;
  view.getTiddler = ((title: string) => {
    const tiddler = wiki.getTiddler(title);
    return tiddler && !isHiddenFromAgent(title, tiddler.getFieldStrings() as TiddlerFields) ? tiddler : undefined;
  }) as Wiki['getTiddler'];
  return view;
}

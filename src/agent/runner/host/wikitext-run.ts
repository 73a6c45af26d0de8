/*\
How the TiddlyWiki port (tiddlywiki-port.ts) runs wikitext for the agent's tools: a tiddler
rendered to plain text, an action string invoked, a filter run with variables. Arguments are
data: renders and actions see each one through a function, never pasted into the wikitext,
and actions run under a parent of their own, so a message they send reaches no handler.
\*/
import type { Wiki } from 'tiddlywiki';
import { plainTextOf } from './plain-text';

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
export function variableWidget(wiki: Wiki, variables: Record<string, string> | undefined) {
  if (!variables) return undefined;
  const root = wiki.makeWidget({ tree: [] }, {}) as unknown as { makeFakeWidgetWithVariables(v: Record<string, string>): unknown };
  return root.makeFakeWidgetWithVariables(variables) as Parameters<Wiki['filterTiddlers']>[1];
}

/** `title` rendered in `wiki` as plain text, with `variables` as its arguments. */
export function renderPlainText(wiki: Wiki, title: string, variables: Record<string, string>): string {
  // Global procedures are only visible through an explicit import (as in the page template).
  const text = `\\import [subfilter{$:/core/config/GlobalImportFilter}]\n${dataVariables(variables)}<$transclude $tiddler=<<tiddlyagent-source>> $mode=block/>`;
  const parser = wiki.parseText('text/vnd.tiddlywiki', text, {});
  const widget = wiki.makeWidget(parser, { document: $tw.fakeDocument, variables: { ...prefixed(variables), 'tiddlyagent-source': title } });
  const container = $tw.fakeDocument.createElement('div');
  widget.render(container as unknown as Element, null);
  return plainTextOf(container as unknown as Parameters<typeof plainTextOf>[0]);
}

/** Invoke action wikitext in `wiki`, with `variables` as its arguments; the messages it sent are refused and listed. */
export function runActions(wiki: Wiki, actions: string, variables: Record<string, string>): { refusedMessages: string[] } {
  const refusedMessages: string[] = [];
  // A parent of its own, not the root widget: messages such as tm-http-request (which can
  // send a stored password) or tm-navigate never reach a handler.
  const isolated = wiki.makeWidget({ tree: [] }, {}) as unknown as { dispatchEvent(event: { type: string }): boolean };
  isolated.dispatchEvent = (event) => {
    refusedMessages.push(event.type);
    return false;
  };
  const host = wiki.makeWidget({ tree: [] }, { parentWidget: isolated as never }) as unknown as {
    invokeActionString(actions: string, triggering: unknown, event: unknown, variables: Record<string, string>): void;
  };
  host.invokeActionString(`\\import [subfilter{$:/core/config/GlobalImportFilter}]\n${dataVariables(variables)}${actions}`, null, null, prefixed(variables));
  return { refusedMessages };
}

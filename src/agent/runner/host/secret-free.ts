/*\
No secret in the agent's view: while anything renders, filters or runs actions in a wiki
object made for the agent (the agent view and the sandboxes over it, wiki-view.ts),
TiddlyWiki's password store (where a browser-only wiki keeps provider keys) does not exist.
`$tw.utils.getPassword` answers "" and the <$password> widget is an inert, empty input, so
whatever the wikitext asks (<$wikify output=html>, a transclusion, <$view format=htmlwikified>,
<$genesis $remappable=no>, a \widget override, a filter operator such as `aikey`), nothing the
model can read carries a key. In TiddlyWiki 5.4.1's core the password widget is the one reader
a render can reach; the savers and tm-http-request also read the store, but they run only on
messages, which never leave a render or a user tool of the view (no parent, or one that refuses
them), and which would find the store empty here too.

Both are switched for the duration of the view's (synchronous) render, filter or action run
only: the user's own page renders between them, never during one, and keeps its keys.
\*/
import type { Wiki } from 'tiddlywiki';
import { widget as Widget } from '$:/core/modules/widgets/widget.js';

type WidgetClass = new (...args: never[]) => unknown;
type Classes = Record<string, WidgetClass>;

/** The empty, inert stand-in for <$password>: no value, no change handler (so it never saves one either). */
class InertPasswordWidget extends Widget {
  override render(parent: Element, nextSibling: Element | null): void {
    this.parentDomNode = parent;
    this.computeAttributes();
    this.execute();
    const input = this.document.createElement('input');
    input.setAttribute('type', 'password');
    parent.insertBefore(input, nextSibling);
    this.domNodes.push(input);
    this.renderChildren(input, null);
  }

  override execute(): void {
    this.makeChildWidgets();
  }
}

let depth = 0;

/** Run `fn` with the password store absent (nested calls share the outer switch). */
export function withoutSecrets<T>(fn: () => T): T {
  if (depth++ > 0) {
    try {
      return fn();
    } finally {
      depth--;
    }
  }
  const utils = $tw.utils as unknown as { getPassword(name: string): string };
  const getPassword = utils.getPassword;
  // Shared by every widget: set on the prototype the first time any widget is made.
  const classes = (Widget.prototype as unknown as { widgetClasses?: Classes }).widgetClasses;
  const password = classes?.password;
  utils.getPassword = () => '';
  if (classes) classes.password = InertPasswordWidget as unknown as WidgetClass;
  try {
    return fn();
  } finally {
    depth--;
    utils.getPassword = getPassword;
    if (classes && password) classes.password = password;
  }
}

/** The root widget's entry points: a render, a refresh or an action run of the whole tree. */
const ENTRY_POINTS = ['render', 'refresh', 'invokeActions', 'invokeActionString'] as const;
/** Roots already wrapped: a sandbox over a view makes its widgets through the view's makeWidget. */
const guarded = new WeakSet<object>();

/**
 * Make every widget tree and compiled filter of `view` run with the password store absent.
 * Every render of a wiki object goes through its makeWidget (renderTiddler, renderText,
 * makeTranscludeWidget, <$wikify>, typed blocks), every filter run through its compileFilter.
 */
export function secretFree(view: Wiki): void {
  const base = Object.getPrototypeOf(view) as Wiki & { compileFilter(expression: string): (...args: unknown[]) => string[] };
  view.makeWidget = function (this: Wiki, ...args: Parameters<Wiki['makeWidget']>) {
    const root = base.makeWidget.apply(this, args) as unknown as Record<string, (...a: unknown[]) => unknown>;
    if (guarded.has(root)) return root as never;
    guarded.add(root);
    for (const name of ENTRY_POINTS) {
      const method = root[name];
      if (typeof method === 'function')
        root[name] = function (this: unknown, ...a: unknown[]) {
          return withoutSecrets(() => method.apply(this, a));
        };
    }
    return root as never;
  } as Wiki['makeWidget'];
  (view as unknown as typeof base).compileFilter = function (this: Wiki, expression: string) {
    const compiled = base.compileFilter.call(this, expression);
    return function (this: unknown, ...a: unknown[]) {
      return withoutSecrets(() => compiled.apply(this, a));
    };
  };
}

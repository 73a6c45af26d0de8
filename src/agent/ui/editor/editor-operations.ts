/*\
The tiddler editor's side of "Ask AI" (ask-ai.tid): the text-editor operation `ai-capture`,
sent as `tm-edit-text-operation` from the toolbar's dropdown, which the edit-text widget runs
with the editor's text and selection (only an operation sees the selection). It keeps what is
asked about in the state tiddler (a `$:/temp/tiddlyagent/…` tiddler: never synced, never seen
by an agent): the selection (or the whole text when nothing is selected), where it is, some
text around it, and the chosen instruction and agent. It does not change the text.
\*/
import type { IWidgetEvent, Wiki } from 'tiddlywiki';

interface Operation {
  text: string;
  selStart: number;
  selEnd: number;
}

interface Editor {
  wiki: Wiki;
}

/** Characters of text kept on each side of a selection, as context for the model. */
const CONTEXT = 3000;

type Params = Record<string, string | undefined>;

function params(event: IWidgetEvent): Params {
  return (event.paramObject ?? {}) as Params;
}

function aiCapture(this: Editor, event: IWidgetEvent, operation: Operation): void {
  const p = params(event);
  if (!p.state) return;
  const whole = operation.selStart === operation.selEnd;
  const start = whole ? 0 : operation.selStart;
  const end = whole ? operation.text.length : operation.selEnd;
  const context = whole ? '' : `${operation.text.slice(Math.max(0, start - CONTEXT), start)}[…the text to change…]${operation.text.slice(end, end + CONTEXT)}`;
  this.wiki.addTiddler(
    new $tw.Tiddler({
      title: p.state,
      status: 'asking',
      instruction: p.instruction ?? 'rewrite',
      custom: p.custom ?? '',
      agent: p.agent ?? '',
      target: p.title ?? '',
      original: operation.text.slice(start, end),
      start: String(start),
      end: String(end),
      whole: whole ? 'yes' : 'no',
      context,
    }),
  );
}

export { aiCapture as 'ai-capture' };

/*\
<$action-ai-ask state=… do="ask|stop|apply" draft=…/>: "Ask AI" in the editor (ask-ai.tid).
- `ask` sends what `ai-capture` (editor-operations.ts) kept in the state tiddler to the agent
  through the ChatRunner (so it runs where turns run: this page, or the server with its keys)
  and writes the answer back as `proposed` (shown as a change, ask-changes-widget.ts), or
  `error`;
- `stop` aborts the request and forgets it;
- `apply` puts `proposed` (as the user may have edited it) into the draft in place of what was
  asked about, only if that text is still exactly there: an edit made meanwhile is never
  overwritten (the state then says so).
The state tiddler is the page's only: nothing is saved until the user saves the tiddler.
\*/
import type { widget as Widget } from '$:/core/modules/widgets/widget.js';
import { ActionWidget } from '../action-widget';
import { page } from '../library';
import { requestErrorText } from '../runner-error';

/** Requests on their way, by state tiddler. */
const running = new Map<string, AbortController>();

class AskAiWidget extends ActionWidget {
  override invokeAction(): boolean {
    const state = this.getAttribute('state', '');
    if (!state) return true;
    running.get(state)?.abort();
    running.delete(state);
    const action = this.getAttribute('do', 'ask');
    if (action === 'stop') {
      this.wiki.deleteTiddler(state);
      return true;
    }
    if (action === 'apply') {
      apply(this.wiki, state, this.getAttribute('draft', ''), this.getAttribute('changed-message', 'The text changed since you asked; ask again.'));
      return true;
    }
    void ask(this.wiki, state);
    return true;
  }
}

function apply(wiki: Widget['wiki'], state: string, draftTitle: string, changedMessage: string): void {
  const fields = wiki.getTiddler(state)?.fields;
  const draft = wiki.getTiddler(draftTitle);
  if (fields?.status !== 'proposed' || !draft) return;
  const field = (name: string) => String(fields[name] ?? '');
  const text = String(draft.fields.text ?? '');
  const start = Number(field('start'));
  const end = Number(field('end'));
  if (text.slice(start, end) !== field('original') || (field('whole') === 'yes' && end !== text.length)) {
    wiki.addTiddler(new $tw.Tiddler(wiki.getTiddler(state)!, { status: 'failed', error: changedMessage }));
    return;
  }
  wiki.addTiddler(new $tw.Tiddler(draft, { text: text.slice(0, start) + field('proposed') + text.slice(end) }));
  wiki.deleteTiddler(state);
}

async function ask(wiki: Widget['wiki'], state: string): Promise<void> {
  const fields = wiki.getTiddler(state)?.fields;
  if (fields?.status !== 'asking') return;
  const controller = new AbortController();
  running.set(state, controller);
  const field = (name: string) => String(fields[name] ?? '');
  const update = (values: Record<string, string>) => {
    // Only the request still asked for writes (a newer one, or Stop, replaced it).
    if (running.get(state) !== controller) return;
    running.delete(state);
    const current = wiki.getTiddler(state);
    if (current) wiki.addTiddler(new $tw.Tiddler(current, values));
  };
  try {
    const { text } = await page()
      .getRunner()
      .query(
        {
          kind: 'propose-edit',
          agent: field('agent'),
          instruction: field('instruction'),
          custom: field('custom'),
          text: field('original'),
          title: field('target'),
          context: field('context'),
        },
        controller.signal,
      );
    update({ status: 'proposed', proposed: text, asked: text, error: '' });
  } catch (e) {
    if (!controller.signal.aborted) update({ status: 'failed', error: requestErrorText(wiki, e) });
  }
}

export { AskAiWidget as 'action-ai-ask' };

/*\
The cards a tool call shows while the turn waits for the user, and the changes view they
share with the turn action bar:
- the approval card: exactly what the call would change when the tool can tell (else its
  arguments and preview), and the choices once / chat / always (which asks for a scope
  first: always-allow.ts) / deny;
- the question card (`ask-question`): options, a free answer, Submit and Cancel (or Esc);
- the changes view: tiddler by tiddler, with TiddlyWiki's <$diff-text>, each resulting
  tiddler's active content flagged.
Every choice is a request to the runner, which writes it into the waiting message.
\*/
import type { IParseTreeNode } from 'tiddlywiki';
import { lib } from './library';
import { el, type ChatContext, type RenderedTree } from './chat-context';
import { toggleAlwaysAllow } from './always-allow';

/** A turn journal or a call's planned changes: before and after fields per title (null: absent). */
export type Journal = Record<string, { before: Record<string, string> | null; after: Record<string, string> | null }>;

export function parseJournal(text: unknown): Journal {
  try {
    const parsed = JSON.parse(String(text ?? '{}')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Journal) : {};
  } catch {
    return {};
  }
}

export function prettyJson(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

/**
 * What changes, tiddler by tiddler: the turn diff (what a turn changed) and the approval card
 * (what a call would change). The card shows every field of the result (type and tags
 * always), the turn diff only the fields that changed.
 */
export function renderChanges(ctx: ChatContext, journal: Journal, into: HTMLElement, mode: 'turn' | 'approval'): RenderedTree {
  const str = (value: string) => ({ type: 'string', value });
  const text = (value: string) => ({ type: 'text', text: value });
  const element = (tag: string, className: string, children: unknown[]) => ({ type: 'element', tag, attributes: { class: str(className) }, children });
  // The diff's count in our words ("1 difference"): <$diff-text> sets <<diff-count>> before it renders its children.
  const count = {
    type: 'vars',
    attributes: { 'ai-one': str(ctx.lingo('Changes/DiffCountOne')), 'ai-many': str(ctx.lingo('Changes/DiffCount')) },
    children: [{ type: 'text', attributes: { text: { type: 'filtered', filter: '[<diff-count>match[1]then<ai-one>else<ai-many>search-replace[$count$],<diff-count>]' } } }],
  };
  // A value that is only added or only removed reads better whole than as a diff.
  const diff = (a: string, b: string) =>
    !a
      ? element('span', 'tc-ai-diff-added', [text(b)])
      : !b
        ? element('span', 'tc-ai-diff-removed', [text(a)])
        : { type: 'diff-text', attributes: { source: str(a), dest: str(b), mode: str('words') }, children: [element('span', 'tc-ai-diff-count', [count])] };
  // `revision` and `bag` are the server's sync bookkeeping, not the tiddler's content.
  const quiet = mode === 'turn' ? ['text', 'modified', 'created', 'revision', 'bag'] : ['text', 'title', 'revision', 'bag'];
  const nodes: unknown[] = [];
  for (const [title, { before, after }] of Object.entries(journal)) {
    const state = !before ? 'created' : !after ? 'deleted' : 'changed';
    const rows: unknown[] = [];
    const keys = [...new Set([...(mode === 'approval' && after ? ['type', 'tags'] : []), ...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].filter((k) => !quiet.includes(k));
    for (const k of keys) {
      const a = before?.[k] ?? '';
      const b = after?.[k] ?? (k === 'type' && after ? 'text/vnd.tiddlywiki' : '');
      if (a === b && mode === 'turn') continue;
      // An approval shows every field of what would land, but a changed tiddler's new `modified` stamp is noise.
      if (k === 'modified' && before && after) continue;
      rows.push(element('tr', a === b ? 'tc-ai-diff-same' : '', [element('th', '', [text(k)]), element('td', '', [a === b ? text(b || ctx.lingo('Changes/None')) : diff(a, b)])]));
    }
    const textBefore = before?.text ?? '';
    const textAfter = after?.text ?? '';
    const flags = after ? lib().findActiveContent(after) : [];
    nodes.push(
      element('div', `tc-ai-diff tc-ai-diff-${state}`, [
        element('div', 'tc-ai-diff-title', [{ type: 'link', attributes: { to: str(title) }, children: [text(title)] }, text(` · ${ctx.lingo(`Turn/State/${state}`)}`)]),
        ...(flags.length ? [element('div', 'tc-ai-active-content', [element('strong', '', [text(ctx.lingo('Changes/Active'))]), element('ul', '', flags.map((f) => element('li', '', [text(f)])))])] : []),
        ...(rows.length ? [element('table', 'tc-ai-diff-fields', rows)] : []),
        ...(textBefore !== textAfter ? [element('div', 'tc-ai-diff-text', [diff(textBefore, textAfter)])] : []),
      ]),
    );
  }
  return ctx.renderTree(nodes as IParseTreeNode[], into);
}

/** The collapsed arguments of a call, under `caption` (a lingo key). */
export function toolDetails(ctx: ChatContext, args: string, caption = 'ToolDetails'): HTMLElement {
  const doc = ctx.document;
  const details = el(doc, 'details', 'tc-ai-tool-details');
  details.appendChild(el(doc, 'summary', '', ctx.lingo(caption)));
  details.appendChild(el(doc, 'pre', 'tc-ai-tool-args', prettyJson(args)));
  return details;
}

/**
 * A call waiting for approval, shown once: what it would change when the tool can tell, else
 * the tool's preview, else its arguments; the exact arguments stay one click away (folded).
 * Then the four choices (or `only` those).
 */
export function renderApproval(ctx: ChatContext, message: string, name: string, args: string, preview: string, changes: unknown, body: HTMLElement, only?: string[]): RenderedTree | undefined {
  const doc = ctx.document;
  const card = el(doc, 'div', 'tc-ai-card tc-ai-approval');
  card.appendChild(el(doc, 'div', 'tc-ai-card-title', ctx.lingo('Approval/Title').replace('$tool$', name)));
  const journal = changes ? parseJournal(changes) : {};
  let rendered: RenderedTree | undefined;
  if (Object.keys(journal).length) {
    const view = el(doc, 'div', 'tc-ai-approval-changes');
    card.appendChild(view);
    rendered = renderChanges(ctx, journal, view, 'approval');
    card.appendChild(toolDetails(ctx, args, 'Approval/Arguments'));
  } else if (preview) {
    card.appendChild(el(doc, 'div', 'tc-ai-approval-preview', preview));
    card.appendChild(toolDetails(ctx, args, 'Approval/Arguments'));
  } else {
    card.appendChild(el(doc, 'pre', 'tc-ai-tool-args', prettyJson(args)));
  }
  const buttons = el(doc, 'div', 'tc-ai-card-buttons');
  // A confirm-only tool's card offers only the choices its message names (once, deny).
  for (const choice of (['once', 'chat', 'always', 'deny'] as const).filter((c) => !only?.length || only.includes(c))) {
    const button = el(doc, 'button', `tc-ai-approve-${choice}`, ctx.lingo(`Approval/${choice}`));
    button.setAttribute('data-ai-action', `approve-${choice}`);
    // "Always" first asks what the rule covers (always-allow.ts).
    if (choice === 'always') button.setAttribute('aria-expanded', 'false');
    button.addEventListener?.('click', () => (choice === 'always' ? toggleAlwaysAllow(ctx, card, button, message, name) : void ctx.request(ctx.runner().decide(ctx.chat, message, choice))));
    buttons.appendChild(button);
  }
  card.appendChild(buttons);
  body.appendChild(card);
  return rendered;
}

interface Question {
  question?: string;
  inputType?: string;
  options?: string[];
  allowFreeform?: boolean;
}

/** An `ask-question` call: its options (radio or checkboxes), a free answer, Submit and Cancel. */
export function renderQuestion(ctx: ChatContext, message: string, args: string, body: HTMLElement): void {
  const doc = ctx.document;
  let q: Question = {};
  try {
    q = JSON.parse(args) as Question;
  } catch {
    // shown with an empty question; the user can still dismiss it
  }
  const answer = (answers: string[] | null) => void ctx.request(ctx.runner().answer(ctx.chat, message, answers));
  const card = el(doc, 'div', 'tc-ai-card tc-ai-question');
  card.appendChild(el(doc, 'div', 'tc-ai-card-title', q.question ?? ''));
  const inputs: HTMLInputElement[] = [];
  const multi = q.inputType === 'multi-select';
  for (const option of q.inputType === 'text' ? [] : (q.options ?? [])) {
    const label = el(doc, 'label', 'tc-ai-question-option');
    const input = doc.createElement('input');
    input.type = multi ? 'checkbox' : 'radio';
    input.name = `ai-question-${message}`;
    input.value = option;
    inputs.push(input);
    label.appendChild(input);
    label.appendChild(doc.createTextNode(' ' + option));
    card.appendChild(label);
  }
  let free: HTMLInputElement | undefined;
  if (q.inputType === 'text' || q.allowFreeform !== false) {
    free = doc.createElement('input');
    free.type = 'text';
    free.className = 'tc-ai-question-free';
    free.placeholder = ctx.lingo('Question/Free');
    card.appendChild(free);
  }
  const buttons = el(doc, 'div', 'tc-ai-card-buttons');
  const submit = el(doc, 'button', 'tc-ai-question-submit', ctx.lingo('Question/Submit'));
  submit.setAttribute('data-ai-action', 'answer');
  submit.addEventListener?.('click', () => {
    const answers = inputs.filter((i) => i.checked).map((i) => i.value);
    if (free?.value.trim()) answers.push(free.value.trim());
    answer(answers);
  });
  const cancel = el(doc, 'button', 'tc-ai-question-cancel', ctx.lingo('Question/Cancel'));
  cancel.setAttribute('data-ai-action', 'dismiss');
  cancel.addEventListener?.('click', () => answer(null));
  buttons.appendChild(submit);
  buttons.appendChild(cancel);
  card.appendChild(buttons);
  card.addEventListener?.('keydown', (event: Event) => {
    if ((event as KeyboardEvent).key === 'Escape') answer(null);
  });
  body.appendChild(card);
}

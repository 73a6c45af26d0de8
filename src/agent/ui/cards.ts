/*\
The cards a tool call shows while the turn waits for the user:
- the approval card: what the call would change when the tool can tell, changes first
  (change-view.ts; else its arguments and preview), the choices once / chat / always (which
  asks for a scope first: always-allow.ts) / deny, and Edit where the user may allow their own
  version of the text (approval-editor.ts);
- the question card (`ask-question`): options, a free answer, Submit and Cancel (or Esc).
Every choice is a request to the runner, which writes it into the waiting message.
\*/
import { APPROVAL_CHOICES, isOffered } from '../store/approval-choices';
import { toggleAlwaysAllow } from './always-allow';
import { offerEdit } from './approval-editor';
import { actionButton, el, type ChatContext } from './chat-context';
import { renderChanges } from './change-view';
import { parseJournal } from '../store/turn-journal';

export function prettyJson(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
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
 * A call waiting for approval, shown once: what it would change when the tool can tell (changes
 * first, change-view.ts), else the tool's preview, else its arguments; the exact arguments stay
 * one click away (folded). Then the four choices (or `only` those), and, when the call lets the
 * user change the text of `editable` before allowing it, Edit (approval-editor.ts).
 */
export function renderApproval(
  ctx: ChatContext,
  message: string,
  name: string,
  args: string,
  preview: string,
  changes: unknown,
  body: HTMLElement,
  only?: string[],
  editable?: string,
): void {
  const doc = ctx.document;
  const card = el(doc, 'div', 'tc-ai-card tc-ai-approval');
  card.appendChild(el(doc, 'div', 'tc-ai-card-title', ctx.lingo('Approval/Title').replace('$tool$', name)));
  const journal = changes ? parseJournal(changes) : {};
  const view = el(doc, 'div', 'tc-ai-approval-changes');
  if (Object.keys(journal).length) {
    card.appendChild(view);
    renderChanges(ctx, journal, view, 'approval');
    card.appendChild(toolDetails(ctx, args, 'Approval/Arguments'));
  } else if (preview) {
    card.appendChild(el(doc, 'div', 'tc-ai-approval-preview', preview));
    card.appendChild(toolDetails(ctx, args, 'Approval/Arguments'));
  } else {
    card.appendChild(el(doc, 'pre', 'tc-ai-tool-args', prettyJson(args)));
  }
  const buttons = el(doc, 'div', 'tc-ai-card-buttons');
  // A confirm-only tool's card offers only the choices its message names (once, deny).
  for (const choice of APPROVAL_CHOICES.filter((c) => isOffered(c, only))) {
    const button = actionButton(doc, `tc-ai-approve-${choice}`, ctx.lingo(`Approval/${choice}`), `approve-${choice}`);
    // "Always" first asks what the rule covers (always-allow.ts).
    if (choice === 'always') button.setAttribute('aria-expanded', 'false');
    button.addEventListener?.('click', () =>
      choice === 'always'
        ? toggleAlwaysAllow(ctx, card, button, message, name)
        : void ctx.request(ctx.runner().submit({ kind: 'decide', chat: ctx.chat, message, choice })),
    );
    buttons.appendChild(button);
  }
  card.appendChild(buttons);
  const entry = editable === undefined ? undefined : journal[editable];
  if (entry?.after) offerEdit(ctx, { message, title: editable!, before: entry.before?.text ?? '', proposed: entry.after.text ?? '' }, card, [view, buttons]);
  body.appendChild(card);
}

/** The tiddler whose text the user may edit on a waiting call's card (store/user-version.ts: `approval-edit`). */
export function editableOf(fields: Record<string, unknown>): string | undefined {
  return typeof fields['approval-edit'] === 'string' && fields['approval-edit'] ? fields['approval-edit'] : undefined;
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
  const answer = (answers: string[] | null) => void ctx.request(ctx.runner().submit({ kind: 'answer', chat: ctx.chat, message, answers }));
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
    label.appendChild(doc.createTextNode(` ${option}`));
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

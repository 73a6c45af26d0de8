/*\
Edit before allowing, on the approval card: Edit opens the proposed text of the call's tiddler
in a text box, the cursor at its first change; "Allow my version" asks the runner to allow the
call with the user's text, which it plans through the write gate first (runner/local-runner.ts,
submitDecision). A version the gate refuses is refused there and then: the card says why and
keeps waiting, with the user's text still in the box. Cancel puts the card back as it was.
\*/
import { actionButton, confirmRow, el, type ChatContext } from './chat-context';
import { requestErrorText } from './runner-error';

export interface EditableCall {
  /** The waiting tool message. */
  message: string;
  /** The tiddler whose text the user may change, its text now (empty when new) and as the call proposes it. */
  title: string;
  before: string;
  proposed: string;
}

/** The box shows at least, and at most, this many lines before it scrolls (an editor, the one box that may). */
const MIN_ROWS = 4;
const MAX_ROWS = 14;

/** Add Edit to the card's buttons; while editing, `hide` (the changes and the choices) make way for the text box. */
export function offerEdit(ctx: ChatContext, call: EditableCall, card: HTMLElement, hide: HTMLElement[]): void {
  const buttons = hide[hide.length - 1]!;
  const edit = actionButton(ctx.document, 'tc-ai-approve-edit', ctx.lingo('Approval/Edit'), 'approve-edit');
  buttons.appendChild(edit);
  // The editor is built when the user opens it: a card nobody edits holds no copy of the text.
  let editor: Editor | undefined;
  edit.addEventListener?.('click', () => {
    editor ??= buildEditor(ctx, call, card, () => {
      for (const part of hide) part.removeAttribute('hidden');
      edit.focus();
    });
    for (const part of hide) part.setAttribute('hidden', '');
    editor.open();
  });
}

interface Editor {
  open(): void;
}

/** The text box, the refusal (if any) and "Allow my version" / Cancel; `closed` puts the card back. */
function buildEditor(ctx: ChatContext, call: EditableCall, card: HTMLElement, closed: () => void): Editor {
  const doc = ctx.document;
  const editor = el(doc, 'div', 'tc-ai-approval-editor');
  editor.appendChild(el(doc, 'div', 'tc-ai-approval-editor-hint', ctx.lingo('Approval/EditHint')));
  const box = doc.createElement('textarea');
  box.className = 'tc-ai-approval-edit-box';
  box.setAttribute('aria-label', ctx.lingo('Approval/EditLabel').replace('$title$', call.title));
  box.rows = Math.max(MIN_ROWS, Math.min(MAX_ROWS, call.proposed.split('\n').length));
  editor.appendChild(box);
  // The write gate's reason (the engine's words), under a headline in the UI's language.
  const refusal = el(doc, 'div', 'tc-ai-approval-refused');
  refusal.setAttribute('role', 'alert');
  refusal.appendChild(el(doc, 'div', 'tc-ai-approval-refused-headline', ctx.lingo('Approval/EditRefused')));
  const reason = el(doc, 'div', 'tc-ai-approval-refused-reason');
  refusal.appendChild(reason);
  const {
    row,
    confirm: allow,
    cancel,
  } = confirmRow(
    ctx,
    { className: 'tc-ai-approve-edited', label: ctx.lingo('Approval/AllowMine'), action: 'approve-edited' },
    { className: 'tc-ai-approve-edit-cancel', action: 'approve-edit-cancel' },
  );
  editor.appendChild(row);
  card.appendChild(editor);

  cancel.addEventListener('click', () => {
    editor.hidden = true;
    refusal.remove();
    closed();
  });
  allow.addEventListener('click', () => {
    const text = box.value;
    allow.disabled = true;
    // Unchanged, it is the agent's version: allowed as "once" would allow it.
    const decided =
      text === call.proposed
        ? ctx.runner().submit({ kind: 'decide', chat: ctx.chat, message: call.message, choice: 'once' })
        : ctx.runner().submit({ kind: 'decide', chat: ctx.chat, message: call.message, choice: 'once', text });
    decided.catch((e: unknown) => {
      reason.textContent = requestErrorText(ctx.wiki, e);
      row.before(refusal);
      allow.disabled = false;
    });
  });
  return {
    open() {
      box.value = call.proposed;
      editor.hidden = false;
      // The cursor where the agent's change starts, in view: the box scrolls to it on focus.
      let at = 0;
      while (at < call.before.length && at < call.proposed.length && call.before[at] === call.proposed[at]) at++;
      box.focus();
      box.setSelectionRange(at, at);
      box.scrollIntoView({ block: 'nearest' });
    },
  };
}

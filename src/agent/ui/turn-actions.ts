/*\
The turn action bar, under the last message of each turn: "N tiddlers changed" (the turn's
diff), Rollback (with a conflict card when tiddlers changed since), Retry (the chat's last
turn, once it has ended), Delete (which asks first when the turn's changes stand:
delete-turn.ts) and Copy (the turn's last reply). Which message carries a
bar is worked out from the messages around the rendered window only, so a long chat costs
no more than a short one. Every action is a request to the runner.
\*/
import { el, type ChatContext } from './chat-context';
import { renderChanges } from './change-view';
import { JOURNAL_ROLLED_BACK, parseJournal } from '../store/turn-journal';
import { askDeleteTurn } from './delete-turn';
import { isPart, journalTitle } from '../store/chat-parts';
import { attachedBar, type AttachedBar } from './message-view';

export interface ListedMessage {
  title: string;
  seq: number;
  role: string;
}

export interface TurnBarSpec {
  /** The turn's user message: how the runner names the turn. */
  user: string;
  /** The chat's last turn, ended: it can be answered again (Retry). */
  last: boolean;
  /** The turn's last reply, for Copy. */
  reply?: string;
}

/**
 * Where the bars go among `all[first..]` (the rendered window of the chat's messages, in
 * order): on the last message of every turn that has more than the user's message, keyed
 * by that message's title. Only the turn the window starts in is looked at before `first`.
 */
export function placeTurnBars(all: readonly ListedMessage[], first: number, active: boolean): Map<string, TurnBarSpec> {
  const bars = new Map<string, TurnBarSpec>();
  let start = Math.min(first, all.length - 1);
  while (start > 0 && all[start]!.role !== 'user') start--;
  let user = -1;
  let reply = -1;
  for (let i = Math.max(0, start); i < all.length; i++) {
    const m = all[i]!;
    if (m.role === 'user') {
      user = i;
      reply = -1;
      continue;
    }
    if (m.role === 'assistant') reply = i;
    if (i < first || user < 0) continue;
    const last = i === all.length - 1;
    if (!last && all[i + 1]!.role !== 'user') continue;
    bars.set(m.title, { user: all[user]!.title, last: last && !active, reply: reply >= 0 ? all[reply]!.title : undefined });
  }
  return bars;
}

/** The turn's journal (what its tools changed; runner/tools write it, the UI only reads it), if the chat has one. */
function turnJournal(ctx: ChatContext, userMessage: string): Record<string, unknown> | undefined {
  const title = journalTitle(ctx.chat, userMessage);
  const fields = ctx.wiki.getTiddler(title)?.fields;
  return fields && isPart('journals', ctx.chat, title, fields) ? fields : undefined;
}

/** What a bar shows, as a string: the bar is rebuilt only when this changes. */
export function barKey(ctx: ChatContext, spec: TurnBarSpec): string {
  const fields = turnJournal(ctx, spec.user);
  const journal = fields ? `${String(fields.text ?? '').length}:${fields[JOURNAL_ROLLED_BACK] ? 'rb' : ''}` : '';
  return `${spec.user}|${spec.last}|${spec.reply ?? ''}|${journal}`;
}

export function renderTurnBar(ctx: ChatContext, spec: TurnBarSpec, key: string): AttachedBar {
  const doc = ctx.document;
  const { chat } = ctx;
  const user = spec.user;
  const element = el(doc, 'div', 'tc-ai-turn-actions');
  element.setAttribute('data-turn', user);
  const panel = el(doc, 'div', 'tc-ai-turn-panel');
  let diffOpen = false;
  const closePanel = () => {
    diffOpen = false;
    panel.textContent = '';
  };
  const button = (cls: string, label: string, action: string, onClick: () => void) => {
    const b = el(doc, 'button', `tc-btn-invisible tc-ai-turn-${cls}`, label);
    b.setAttribute('data-ai-action', action);
    b.addEventListener('click', onClick);
    element.appendChild(b);
  };
  const journalFields = turnJournal(ctx, user);
  const journal = parseJournal(journalFields?.text);
  const changed = Object.keys(journal).length;
  /** Roll the turn back; with conflicts, the card that asks (nothing restored). True once restored. */
  const rollBack = () =>
    ctx.request(ctx.runner().submit({ kind: 'rollback', chat, message: user })).then((result) => {
      if (!result?.conflicts.length) return !!result;
      closePanel();
      panel.appendChild(conflictCard(ctx, user, result.conflicts, closePanel));
      return false;
    });
  if (changed) {
    button('changes', ctx.lingo(changed === 1 ? 'Turn/ChangedOne' : 'Turn/Changed').replace('$count$', String(changed)), 'show-changes', () => {
      const open = diffOpen;
      closePanel();
      if (!open) {
        renderChanges(ctx, journal, panel, 'turn');
        diffOpen = true;
      }
    });
    if (journalFields?.[JOURNAL_ROLLED_BACK]) element.appendChild(el(doc, 'span', 'tc-ai-turn-rolled-back', ctx.lingo('Turn/RolledBack')));
    else button('rollback', ctx.lingo('Turn/Rollback'), 'rollback', () => void rollBack());
  }
  if (spec.last)
    button('retry', ctx.lingo('Turn/Retry'), 'retry', () => {
      ctx.followReply();
      void ctx.request(ctx.runner().submit({ kind: 'retry', chat, message: user }));
    });
  // Deleting a turn whose changes stand would remove the only way back: ask first (delete-turn.ts).
  const standing = journalFields?.[JOURNAL_ROLLED_BACK] ? [] : Object.keys(journal);
  button('delete', ctx.lingo('Turn/Delete'), 'delete-turn', () => {
    if (!standing.length) return void ctx.request(ctx.runner().submit({ kind: 'delete-turn', chat, message: user }));
    const open = !!panel.querySelector('.tc-ai-delete-turn');
    closePanel();
    if (!open) panel.appendChild(askDeleteTurn(ctx, { user, changed: standing, rollBack, close: closePanel }));
  });
  const reply = spec.reply;
  if (reply) {
    button('copy', ctx.lingo('Turn/Copy'), 'copy-reply', () => {
      $tw.utils.copyToClipboard(String(ctx.wiki.getTiddler(reply)?.fields.text ?? ''));
    });
  }
  element.appendChild(panel);
  return attachedBar(element, key);
}

/** Tiddlers changed since the turn changed them: nothing was restored; the user may force it. */
function conflictCard(ctx: ChatContext, user: string, conflicts: string[], close: () => void): HTMLElement {
  const doc = ctx.document;
  const ask = el(doc, 'div', 'tc-ai-card tc-ai-rollback-conflict');
  ask.appendChild(el(doc, 'div', 'tc-ai-card-title', ctx.lingo('Turn/Conflict')));
  ask.appendChild(el(doc, 'div', 'tc-ai-rollback-conflicts', conflicts.join(', ')));
  const force = el(doc, 'button', 'tc-ai-rollback-force', ctx.lingo('Turn/RollbackAnyway'));
  force.setAttribute('data-ai-action', 'rollback-force');
  force.addEventListener('click', () => void ctx.request(ctx.runner().submit({ kind: 'rollback', chat: ctx.chat, message: user, force: true })));
  const cancel = el(doc, 'button', 'tc-ai-rollback-cancel', ctx.lingo('Question/Cancel'));
  cancel.addEventListener('click', close);
  ask.appendChild(force);
  ask.appendChild(cancel);
  return ask;
}

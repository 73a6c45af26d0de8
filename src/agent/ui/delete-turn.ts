/*\
Delete turn on a turn whose changes stand (its journal, not rolled back) asks first: the
journal is the only way to roll those changes back. "Roll back first, then delete" restores
them and then deletes the turn (a conflict stops it at the rollback's own card); "Delete and
keep the changes" deletes it with keepChanges and says, under the chat, that the changes
stay without a way back; Cancel closes the panel. A turn that changed nothing, or was rolled
back, is deleted at once by the turn bar (turn-actions.ts).
\*/
import { actionButton, el, type ChatContext } from './chat-context';
import { fill, quotedTitles } from './rule-words';

export interface DeleteTurnPanel {
  /** The turn's user message (how the runner names the turn). */
  user: string;
  /** The tiddlers whose changes stand. */
  changed: string[];
  /** Roll the turn back through the bar (which shows a conflict card when needed); true once restored. */
  rollBack(): Promise<boolean>;
  close(): void;
}

export function askDeleteTurn(ctx: ChatContext, spec: DeleteTurnPanel): HTMLElement {
  const doc = ctx.document;
  const { chat } = ctx;
  const titles = quotedTitles(spec.changed);
  const ask = el(doc, 'div', 'tc-ai-card tc-ai-delete-turn');
  ask.appendChild(
    el(
      doc,
      'div',
      'tc-ai-card-title',
      fill(ctx.lingo(spec.changed.length === 1 ? 'Turn/DeleteAskOne' : 'Turn/DeleteAsk'), { count: String(spec.changed.length), titles }),
    ),
  );
  const buttons = el(doc, 'div', 'tc-ai-card-buttons');
  const button = (cls: string, label: string, action: string, onClick: () => void) => {
    const b = actionButton(doc, cls, label, action);
    b.addEventListener('click', onClick);
    buttons.appendChild(b);
    return b;
  };
  const deleted = (keepChanges: boolean) =>
    ctx.request(
      ctx
        .runner()
        .submit({ kind: 'delete-turn', chat, message: spec.user, keepChanges })
        .then(() => true),
    );
  const first = button('tc-ai-delete-turn-rollback', ctx.lingo('Turn/DeleteRollBackFirst'), 'delete-turn-rollback', () => {
    void spec.rollBack().then((restored) => restored && deleted(false));
  });
  button('tc-ai-delete-turn-keep', ctx.lingo('Turn/DeleteKeep'), 'delete-turn-keep', () => {
    void deleted(true).then((done) => done && ctx.notify(fill(ctx.lingo('Turn/DeleteKept'), { titles })));
  });
  button('tc-ai-delete-turn-cancel', ctx.lingo('Question/Cancel'), 'delete-turn-cancel', spec.close);
  ask.appendChild(buttons);
  // The safe choice has the focus.
  queueMicrotask(() => first.focus());
  return ask;
}

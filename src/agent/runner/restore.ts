/*\
Restart recovery (seed 003): after a reload or a restart no turn can still be running. What the
operation log holds unfinished is failed (a send's words are kept as its user message); a chat
left `working` gets an error message and becomes `interrupted`; chats waiting for the user keep
waiting, with their confirmation timers restored, unless every waiting call already has its
decision or answer (cut off before the turn went on: interrupted too), or they are a
sub-agent's, whose parent's call is gone (canceled). A decision or answer that was accepted but
had not run fails too, and its chat says so under the card that waits again.
\*/
import type { LocalRunner } from './local-runner';
import type { OperationLog } from './operations';

const INTERRUPTED = 'This turn was interrupted: the page was closed or reloaded while it ran. Send your message again to retry.';
const DECISION_NOT_APPLIED =
  'Interrupted by server restart: your decision was received but not applied before the server stopped. The call is still waiting: decide again.';
const ANSWER_NOT_APPLIED =
  'Interrupted by server restart: your answer was received but not applied before the server stopped. The question is still waiting: answer again.';

/** Returns the chats it marked. */
export function restoreAfterRestart(runner: LocalRunner, log: OperationLog): string[] {
  const { wiki } = runner.host;
  const marked = new Set<string>();
  const cutOff = new Set<string>();
  // Chats whose decision or answer was accepted (logged) but had not run: the card waits again, and says why.
  const notApplied = new Map<string, string>();
  for (const op of log.unfinished()) {
    if (op.kind === 'decide' || op.kind === 'answer') notApplied.set(op.chat, op.kind === 'decide' ? DECISION_NOT_APPLIED : ANSWER_NOT_APPLIED);
    // An edit's branch and its message are written in one step: both landed, or the chat is as it was.
    if ((op.kind === 'send' || op.kind === 'edit') && op.text && wiki.getFields(op.chat)) {
      const kept = wiki.filter('[field:agent-operation<id>]', { id: op.id });
      if (!kept.length && op.kind === 'edit') {
        // Cut off before it started: nothing changed.
      } else if (!kept.length && op.kind === 'send') {
        runner.store.appendMessage(op.chat, { role: 'user', text: op.text, attachments: op.attachments, operation: op.id, source: op.source });
        cutOff.add(op.chat);
      } else if (runner.store.listMessages(op.chat).at(-1)?.title === kept[0]) {
        // Cut off after its message was saved, before the turn saved anything else (its status included).
        cutOff.add(op.chat);
      }
    }
    log.write({ ...op, status: 'failed', error: 'Interrupted by server restart' });
  }
  for (const chat of runner.store.listChats()) {
    if (runner.isActive(chat)) continue;
    const status = wiki.getFields(chat)?.['agent-status'];
    if (status === 'input-required' && wiki.getFields(chat)?.['agent-parent']) {
      // A sub-agent answers its parent's call, which no longer runs: nobody waits for it now.
      runner.decisions.close(chat, 'The parent turn ended (a restart or reload), so this sub-agent was stopped.', 'canceled');
      runner.setStatus(chat, 'canceled');
      marked.add(chat);
      continue;
    }
    if (status === 'input-required' && !cutOff.has(chat)) {
      // Still waiting for the user, or cut off after the last decision or answer landed (it waits for nothing).
      if (runner.decisions.allDecided(chat)) cutOff.add(chat);
      else {
        runner.expiry.schedule(chat);
        const why = notApplied.get(chat);
        if (why) {
          runner.store.appendMessage(chat, { role: 'error', text: why, errorKind: 'interrupted' });
          marked.add(chat);
        }
      }
    }
    if (status !== 'working' && !cutOff.has(chat)) continue;
    runner.store.appendMessage(chat, { role: 'error', text: runner.host.interruptedText ?? INTERRUPTED, errorKind: 'interrupted' });
    // A turn cut off before its `working` reached disk did start (its message is saved): it went working, then was cut off.
    if (status !== 'working' && status !== 'input-required') runner.setStatus(chat, 'working');
    runner.setStatus(chat, 'interrupted');
    marked.add(chat);
  }
  return [...marked];
}

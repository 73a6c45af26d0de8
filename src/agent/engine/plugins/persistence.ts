/*\
Built-in plugin: message persistence. One write per finished message: the user's message
when it arrives, the reply when it completes, each tool result when it is ready. Replies and
tool results carry the versions of tiddlers they showed the agent (store/read-ledger.ts) and
the tiddlers they listed, for the chat's line about the call; a call that ran without asking
because of the user's rule names that rule (`approval-rule`).
\*/
import type { EnginePlugin } from '../hooks';
import type { ToolCallResult } from '../tool-executor';
import { READ_FIELD, stringifyReads } from '../../store/read-ledger';
import { toolStepFields, type ChatStore, type NewMessage } from '../../store/chat-store';
import { DONE_WITH_APPROVAL } from '../../store/user-version';
import { stringifyTitleList } from '../../store/wiki-port';
import { CURRENT_TIDDLER_FIELD } from './prompt';
import { resultDuration } from '../result-expiry';

export const persistencePlugin: EnginePlugin = {
  name: 'persistence',
  apply(hooks) {
    hooks.userMessageReceived.tap('persistence', (message, ctx) => {
      message.title = ctx.store.appendMessage(ctx.chat, {
        role: 'user',
        text: message.text,
        attachments: message.attachments,
        operation: message.operation,
        source: message.source,
      });
    });
    hooks.responseComplete.tap('persistence', (response, ctx) => {
      const calls = response.toolCalls.filter((c) => !c.invalid).map(({ id, name, args }) => ({ id, name, args }));
      const invalid = response.toolCalls.filter((c) => c.invalid);
      if (!response.text && !response.reasoning && !response.toolCalls.length) return;
      response.title = ctx.store.appendMessage(ctx.chat, {
        role: 'assistant',
        text: response.text,
        reasoning: response.reasoning,
        model: ctx.model,
        round: ctx.round,
        finish: response.canceled ? 'canceled' : response.error ? 'error' : response.finish === 'length' ? 'length' : 'stop',
        tokensIn: response.usage.inputTokens,
        tokensOut: response.usage.outputTokens,
        // Calls whose arguments were cut off are recorded too, so their error results pair up.
        toolCalls: [...calls, ...invalid.map(({ id, name }) => ({ id, name, args: {} }))],
        // What the reply's prompt showed as current: its calls were made with that version in view.
        read: response.reads,
        memories: response.memories,
        sources: response.sources,
      });
    });
    hooks.toolExecuted.tap('persistence', ({ result, pendingTitle, approvalRule }, ctx) => {
      const current = result.output?.currentTiddler;
      if (current) ctx.store.setStatus(ctx.chat, 'working', { [CURRENT_TIDDLER_FIELD]: current });
      // Images are named, never copied into the message: tiddlers by title, others kept with the chat.
      const attachments = [...(result.output?.attachments ?? []), ...(result.output?.images ?? []).map((image) => ctx.store.saveImage(ctx.chat, image))];
      const child = result.output?.child;
      // A bulky result leaves the prompt after its rounds (engine/result-expiry.ts).
      const duration = resultDuration(ctx.agent, ctx.tools.get(result.call.name), result.call.name, result);
      recordToolResult(ctx.store, ctx.chat, result, pendingTitle, {
        fields: {
          'agent-round': String(ctx.round),
          'agent-child': child,
          attachments: attachments.length ? stringifyTitleList(attachments) : undefined,
          'agent-duration': duration === undefined ? undefined : String(duration),
        },
        message: { round: ctx.round, child, attachments, duration, approvalRule: approvalRule ? JSON.stringify(approvalRule) : undefined },
      });
    });
  },
};

/**
 * A finished call written into its chat: into the call's pending message when it waited for
 * the user (with `fields`), else as a new tool message (with `message`). Either way it carries
 * its status, outcome, what it read and the titles it listed.
 */
export function recordToolResult(
  store: ChatStore,
  chat: string,
  result: ToolCallResult,
  pendingTitle: string | undefined,
  extra: { fields: Record<string, string | undefined>; message: Partial<NewMessage> },
): void {
  const read = result.output?.read;
  if (pendingTitle) {
    store.updateFields(pendingTitle, {
      text: result.content,
      'tool-status': result.status,
      'tool-outcome': result.outcome,
      ...extra.fields,
      [READ_FIELD]: stringifyReads(read),
      ...toolStepFields(result.output),
      ...DONE_WITH_APPROVAL,
    });
    return;
  }
  store.appendMessage(chat, {
    role: 'tool',
    text: result.content,
    toolName: result.call.name,
    toolCallId: result.call.id,
    toolArgs: result.call.args,
    toolStatus: result.status,
    toolOutcome: result.outcome,
    read,
    titles: result.output?.titles,
    found: result.output?.found,
    ...extra.message,
  });
}

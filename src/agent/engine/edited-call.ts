/*\
Edit before allowing: whether the user's own version of a waiting call's text would land.
The call is planned as it will run once allowed (the same tool, arguments, reads and write
gate, the user's text in place of the agent's), so a version the gate refuses is refused on
the card, before anything is decided; the call is checked again when it runs.
\*/
import type { ChatStore } from '../store/chat-store';
import { readLedger } from '../store/read-ledger';
import type { Message } from '../store/schemas';
import { createToolContext, type ToolDefinition, type ToolServices } from '../tools/tool';
import { parseToolCalls } from './history';
import { plannedChanges } from './call-review';

/** Why the user's version `text` of the waiting call `message` would be refused, or undefined when it would land. */
export function userVersionRefusal(
  store: ChatStore,
  tools: ReadonlyMap<string, ToolDefinition>,
  services: ToolServices,
  message: Message,
  text: string,
): string | undefined {
  const chat = message['agent-chat'];
  const tool = tools.get(message['tool-name'] ?? '');
  if (!tool?.editableText) return 'The text of this call cannot be edited before allowing it.';
  const messages = store.listMessages(chat);
  const id = message['tool-call-id'];
  // The reply that made the call: what the agent had read then is what the call may write over.
  const reply = messages.filter((m) => m.role === 'assistant' && m['agent-seq'] < message['agent-seq'] && parseToolCalls(m).some((c) => c.id === id)).at(-1);
  const call = reply && parseToolCalls(reply).find((c) => c.id === id);
  if (!reply || !call) return 'The call is no longer in the chat.';
  const agent = store.readAgent(store.readChat(chat).agent);
  const context = createToolContext(
    store.wiki,
    { chat, agent, turn: '', signal: new AbortController().signal, reads: readLedger(messages, reply['agent-seq']), userText: text },
    services,
  );
  const planned = plannedChanges(tool, call.args, () => context);
  return 'refused' in planned ? planned.refused : undefined;
}

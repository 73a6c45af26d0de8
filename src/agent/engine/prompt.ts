/*\
Prompt assembly: the agent's rendered system prompt followed by the chat history as
provider-neutral messages. Error bubbles are for the user and never reach the model.
\*/
import type { ModelMessage } from '../providers/types';
import type { Message } from '../store/schemas';

export function buildPrompt(systemPrompt: string, history: Message[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  if (systemPrompt.trim()) messages.push({ role: 'system', content: systemPrompt.trim() });
  for (const m of history) {
    if (m.role === 'user') messages.push({ role: 'user', content: m.text });
    else if (m.role === 'assistant' && m.text.trim()) messages.push({ role: 'assistant', content: m.text });
  }
  return messages;
}

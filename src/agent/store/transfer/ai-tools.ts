/*\
Import conversations of TiddlyWiki's AI Tools plugin: a conversation is a tiddler tagged
$:/tags/AI/Conversation; its messages are tiddlers tagged with the conversation's title, with
`role` user, assistant or error, ordered by `created`. The conversation's `system-prompt`,
server and model and a message's `image` have no place in a chat: the report names them.
\*/
import { chatTiddlers, freeTitle, ImportError, tagsOf, type ImportPlan, type ImportTarget, type PlannedMessage } from './plan';
import type { TiddlerFields } from '../wiki-port';

export const CONVERSATION_TAG = '$:/tags/AI/Conversation';

export function isConversation(fields: Record<string, unknown>): boolean {
  return tagsOf(fields).includes(CONVERSATION_TAG);
}

export function planAiTools(tiddlers: TiddlerFields[], target: ImportTarget): ImportPlan {
  const conversations = tiddlers.filter(isConversation);
  if (!conversations.length) throw new ImportError(`The file holds no AI Tools conversation (a tiddler tagged ${CONVERSATION_TAG}).`);
  const out: TiddlerFields[] = [];
  const created: string[] = [];
  const notMapped: string[] = [];
  const used = new Set<string>();
  for (const conv of conversations) {
    const members = tiddlers
      .filter((t) => !t['draft.of'] && tagsOf(t).includes(conv.title!) && t.role !== undefined)
      .sort((a, b) => (a.created ?? '').localeCompare(b.created ?? '') || a.title!.localeCompare(b.title!));
    const messages: PlannedMessage[] = [];
    for (const m of members) {
      if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'error') {
        notMapped.push(`"${m.title}": the role "${m.role}"`);
        continue;
      }
      if (m.image) notMapped.push(`"${m.title}": its image "${m.image}"`);
      messages.push({ role: m.role, text: m.text ?? '', created: /^\d{14,17}$/.test(m.created ?? '') ? m.created : undefined });
    }
    if (conv['system-prompt']?.trim()) notMapped.push(`"${conv.title}": its system prompt (the chat uses the agent's)`);
    const title = freeTitle(conv.title!, target, used);
    out.push(...chatTiddlers(title, target.agent, target.now, messages));
    created.push(title);
  }
  return { format: 'ai-tools', tiddlers: out, created, notMapped };
}

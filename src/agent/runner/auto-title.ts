/*\
The automatic title: after a chat's first turn completed under a default title (`Chat`,
`Chat 1`…), its model is asked for a title in a side request (engine/chat-title.ts), else the
first words of the user's message are taken, and the chat is renamed to it (made unique).
Stop aborts the request; a chat the user renamed or deleted meanwhile is left alone. The
request's model and tokens go on the chat (TITLE_COST_FIELDS), so the cost view counts it.
\*/
import { suggestChatTitle } from '../engine/chat-title';
import { CONFIG, configValue } from '../store/config';
import { TITLE_COST_FIELDS } from '../store/cost';
import { isDefaultTitle, titleFromMessage, uniqueTitle } from '../store/chat-titles';
import { isUnlistedChat } from '../store/listed-chats';
import { moveChat } from './services/command-table';
import { englishOf, lingoOf } from './lingo';
import type { LocalRunner } from './local-runner';
import { readPromptWords } from './prompt-words';

/** `no` turns the automatic title after a chat's first turn off. */
export const AUTO_TITLE_CONFIG = CONFIG.autoTitle;

export async function autoTitle(runner: LocalRunner, chat: string): Promise<void> {
  const { wiki } = runner.host;
  const read = (title: string) => wiki.getFields(title)?.text;
  const fields = wiki.getFields(chat);
  if (!fields || isUnlistedChat(fields) || runner.isExternal(chat) || configValue(wiki, AUTO_TITLE_CONFIG) === 'no') return;
  const bases = () => ['Chat', englishOf(read, 'NewChat/BaseTitle') ?? '', lingoOf(read, 'NewChat/BaseTitle')].map((b) => b.trim());
  if (!isDefaultTitle(chat, bases())) return;
  const messages = runner.store.listMessages(chat);
  const users = messages.filter((m) => m.role === 'user');
  if (users.length !== 1) return;
  const reply = messages.filter((m) => m.role === 'assistant' && m.text.trim()).at(-1)?.text ?? '';
  const controller = new AbortController();
  runner.controllers.set(chat, controller);
  let suggested: Awaited<ReturnType<typeof suggestChatTitle>> = {};
  try {
    suggested = await suggestChatTitle({
      store: runner.store,
      chat,
      firstUser: users[0]!.text,
      firstReply: reply,
      createModel: (profile) => runner.createModel(profile),
      signal: controller.signal,
      words: readPromptWords(read),
    });
  } finally {
    runner.controllers.delete(chat);
  }
  if (!wiki.getFields(chat)) return;
  if (suggested.usage && suggested.model)
    runner.store.updateFields(chat, {
      [TITLE_COST_FIELDS.model]: suggested.model,
      [TITLE_COST_FIELDS.tokensIn]: String(suggested.usage.inputTokens ?? 0),
      [TITLE_COST_FIELDS.tokensOut]: String(suggested.usage.outputTokens ?? 0),
    });
  // The user may have renamed the chat meanwhile.
  if (!isDefaultTitle(chat, bases())) return;
  const title = suggested.title || titleFromMessage(users[0]!.text);
  if (title) moveChat(runner, chat, uniqueTitle(wiki, title));
}

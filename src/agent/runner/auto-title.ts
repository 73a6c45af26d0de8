/*\
The automatic title: after a chat's first turn completed under a default title (`Chat`,
`Chat 1`…), its model is asked for a title in a side request (engine/chat-title.ts), else the
first words of the user's message are taken, and the chat is renamed to it (made unique).
Stop aborts the request; a chat the user renamed or deleted meanwhile is left alone.
\*/
import { suggestChatTitle } from '../engine/chat-title';
import { CONFIG, configValue } from '../store/config';
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
  let suggested: string | undefined;
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
  // The user may have renamed or deleted the chat meanwhile.
  if (!wiki.getFields(chat) || !isDefaultTitle(chat, bases())) return;
  const title = suggested || titleFromMessage(users[0]!.text);
  if (title) moveChat(runner, chat, uniqueTitle(wiki, title));
}

/*\
The automatic title of a chat, asked of the chat's own model after its first turn: one small
request through the same provider code as a turn, with no tools and no history beyond the
first user message and the reply, that writes nothing to the chat and is no turn. What comes
back is untrusted text: only a short clean title is taken (store/chat-titles.ts); anything
else (an error, an empty or long answer, Stop) gives undefined and the caller derives the
title from the first message instead.
\*/
import type { LanguageModel } from '../providers/types';
import type { ChatStore } from '../store/chat-store';
import { MAX_TITLE_WORDS, titleFromSuggestion } from '../store/chat-titles';

/** The request's instruction; the mock LLM (scripts/mock-llm.cjs) recognises a title request by its first words. */
export const TITLE_REQUEST = `Name this chat: reply with a title of at most ${MAX_TITLE_WORDS} words for the conversation below, in the language of the user's message. Reply with the title only: no quotes, no punctuation at the end, no markup.`;
/** How much of each message the request carries. */
const EXCERPT = 2000;

export interface TitleRequest {
  store: ChatStore;
  chat: string;
  firstUser: string;
  firstReply: string;
  createModel: (profile: ReturnType<ChatStore['readProvider']>) => LanguageModel;
  signal: AbortSignal;
}

/** The model's title for the chat, cleaned, or undefined when it gave none worth taking. */
export async function suggestChatTitle(request: TitleRequest): Promise<string | undefined> {
  const { store, chat, signal } = request;
  try {
    const agent = store.readAgent(store.readChat(chat).agent);
    const profile = store.readProvider(agent['agent-provider']);
    const model = agent['agent-model'] || profile['default-model'] || '';
    if (!model) return undefined;
    const conversation = `User:\n${request.firstUser.slice(0, EXCERPT)}\n\nAssistant:\n${request.firstReply.slice(0, EXCERPT)}`;
    const stream = request.createModel(profile).stream(
      {
        model,
        messages: [
          { role: 'system', content: TITLE_REQUEST },
          { role: 'user', content: conversation },
        ],
      },
      signal,
    );
    let text = '';
    for await (const part of stream) {
      if (part.type === 'text-delta') text += part.text;
      else if (part.type === 'error') return undefined;
      else if (part.type === 'finish' && part.reason !== 'stop') return undefined;
      if (text.length > 400) return undefined;
    }
    return signal.aborted ? undefined : titleFromSuggestion(text);
  } catch {
    return undefined;
  }
}

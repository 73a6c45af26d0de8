/*\
The automatic title of a chat, asked after its first turn of the agent's side model
(`agent-side-model`), else of the chat's own model: one small
request through the same provider code as a turn, with no tools and no history beyond the
first user message and the reply, that writes nothing to the chat and is no turn. What comes
back is untrusted text: only a short clean title is taken (store/chat-titles.ts); anything
else (an error, an empty or long answer, Stop) gives undefined and the caller derives the
title from the first message instead. The request's words are the runner's (`titleRequest`
of the prompt words, in the wiki's language); the title is asked in the language of the
user's message, which the fallback title is in too. The model asked and the tokens the
provider reported come back with the title, so the cost view can price the request.
\*/
import type { LanguageModel } from '../providers/types';
import type { ChatStore } from '../store/chat-store';
import { MAX_TITLE_CHARACTERS, MAX_TITLE_WORDS, titleFromSuggestion } from '../store/chat-titles';
import { sideModelOf } from './compaction';
import { fill, promptWords, type PromptWords } from './prompt-words';

/** The request's instruction in the runner's words (English by default). */
export function titleInstruction(words?: Partial<PromptWords>): string {
  return fill(promptWords(words).titleRequest, { words: String(MAX_TITLE_WORDS), characters: String(MAX_TITLE_CHARACTERS) });
}
/** How much of each message the request carries. */
const EXCERPT = 2000;

export interface TitleRequest {
  store: ChatStore;
  chat: string;
  firstUser: string;
  firstReply: string;
  createModel: (profile: ReturnType<ChatStore['readProvider']>) => LanguageModel;
  signal: AbortSignal;
  /** The prompt's fixed words in the wiki's language (only `titleRequest` is used). */
  words?: Partial<PromptWords>;
}

/** What the side request gave: the title worth taking (if any), the model asked and what the provider reported it used. */
export interface TitleSuggestion {
  title?: string;
  model?: string;
  usage?: { inputTokens?: number; outputTokens?: number };
}

/** The model's title for the chat, cleaned (undefined when it gave none worth taking), with the request's model and usage. */
export async function suggestChatTitle(request: TitleRequest): Promise<TitleSuggestion> {
  const { store, chat, signal } = request;
  const asked: TitleSuggestion = {};
  try {
    const agent = store.readAgent(store.readChat(chat).agent);
    const profile = store.readProvider(agent['agent-provider']);
    const model = sideModelOf(agent, agent['agent-model'] || profile['default-model'] || '');
    if (!model) return asked;
    asked.model = model;
    const conversation = `User:\n${request.firstUser.slice(0, EXCERPT)}\n\nAssistant:\n${request.firstReply.slice(0, EXCERPT)}`;
    const stream = request.createModel(profile).stream(
      {
        model,
        messages: [
          { role: 'system', content: titleInstruction(request.words) },
          { role: 'user', content: conversation },
        ],
      },
      signal,
    );
    let text = '';
    let failed = false;
    for await (const part of stream) {
      if (part.type === 'text-delta') text += part.text;
      else if (part.type === 'usage') asked.usage = { inputTokens: part.inputTokens, outputTokens: part.outputTokens };
      else if (part.type === 'error' || (part.type === 'finish' && part.reason !== 'stop')) failed = true;
      if (failed || text.length > 400) break;
    }
    if (!failed && !signal.aborted && text.length <= 400) asked.title = titleFromSuggestion(text);
    return asked;
  } catch {
    return asked;
  }
}

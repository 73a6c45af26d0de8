/*\
The provider registry: one adapter per wire API.
\*/
import { createAnthropicModel } from './anthropic';
import { createGeminiModel } from './gemini';
import { createOllamaModel } from './ollama';
import { createOpenAIChatModel } from './openai-chat';
import { createOpenAIResponsesModel } from './openai-responses';
import type { LanguageModel, ProviderSettings } from './types';

const ADAPTERS: Record<string, (settings: ProviderSettings) => LanguageModel> = {
  'openai-chat': createOpenAIChatModel,
  'openai-responses': createOpenAIResponsesModel,
  anthropic: createAnthropicModel,
  gemini: createGeminiModel,
  ollama: createOllamaModel,
};

export function createLanguageModel(api: string, settings: ProviderSettings): LanguageModel {
  const adapter = ADAPTERS[api];
  if (!adapter) {
    throw new Error(
      `The API "${api}" is not supported yet. Supported: ${Object.keys(ADAPTERS).join(', ')} ("openai-chat" also covers most compatible servers).`,
    );
  }
  return adapter(settings);
}

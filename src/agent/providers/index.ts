/*\
The provider registry: one adapter per wire API.
\*/
import { createOpenAIChatModel } from './openai-chat';
import type { LanguageModel, ProviderSettings } from './types';

const ADAPTERS: Record<string, (settings: ProviderSettings) => LanguageModel> = {
  'openai-chat': createOpenAIChatModel,
};

export function createLanguageModel(api: string, settings: ProviderSettings): LanguageModel {
  const adapter = ADAPTERS[api];
  if (!adapter) {
    throw new Error(`The API "${api}" is not supported yet; use "openai-chat" (OpenAI, Ollama's /v1 endpoint and most compatible servers).`);
  }
  return adapter(settings);
}

/*\
The language model a provider profile names, as a turn, a title, a compaction or Ask AI calls it:
the provider registry (providers/index.ts) with the profile's base URL, its key as this host
resolves it (runner/api-key.ts) and its idle timeout. A host may replace the registry (a
scripted model in tests).
\*/
import { createLanguageModel } from '../providers';
import type { FetchFn, LanguageModel } from '../providers/types';
import type { ProviderProfile } from '../store/schemas';
import { type KeySource, profileApiKey } from './api-key';

/** How long a provider may stay silent (seconds) when its profile sets no `timeout`. */
export const DEFAULT_TIMEOUT_SECONDS = 120;

export interface ModelHost extends KeySource {
  fetch: FetchFn;
  createModel?(profile: ProviderProfile): LanguageModel;
}

export function modelFor(profile: ProviderProfile, host: ModelHost): LanguageModel {
  if (host.createModel) return host.createModel(profile);
  return createLanguageModel(profile.api, {
    baseUrl: profile['base-url'],
    apiKey: profileApiKey(profile, host),
    fetch: host.fetch,
    idleTimeoutMs: (profile.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
  });
}

/*\
"Test the connection" for a provider profile, where turns run (this page, or the server in
the server edition): the profile's API and its saved values, overridden by what the user
typed and has not saved (base URL, model, key). A key the user typed is used as typed; the
stored key (password store or environment) goes only to an origin that a saved profile with
the same key name already calls, so a typed base URL cannot make this process send its key
elsewhere. The key never comes back in the result, even when the provider echoes it.
\*/
import { probeProvider, type ProbeResult } from '../providers/probe';
import type { FetchFn } from '../providers/types';
import type { WikiPort } from '../store/wiki-port';
import { RunnerError } from './chat-runner';

export interface ProviderTestRequest {
  /** The profile's title (tagged $:/tags/AI/Provider). */
  profile: string;
  baseUrl?: string;
  model?: string;
  /** Typed and not saved yet; in the server edition never sent (the server uses its environment). */
  apiKey?: string;
}

export interface ProviderTestResult extends ProbeResult {
  /** The stored key was not sent: the typed base URL is an origin no saved profile with this key calls. */
  keyWithheld?: boolean;
  /** The profile names a key and none is stored or typed. */
  noKey?: boolean;
}

const PROFILES = '[all[shadows+tiddlers]tag[$:/tags/AI/Provider]!has[draft.of]]';
const TIMEOUT_MS = 20_000;

export async function testProvider(wiki: WikiPort, request: ProviderTestRequest, fetch: FetchFn, getApiKey: (name: string) => string | undefined): Promise<ProviderTestResult> {
  if (typeof request?.profile !== 'string' || !wiki.filter(PROFILES).includes(request.profile)) {
    throw new RunnerError('not-found', `There is no provider profile "${String(request?.profile)}".`);
  }
  const fields = wiki.getFields(request.profile)!;
  const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
  const baseUrl = text(request.baseUrl) || text(fields['base-url']);
  const model = text(request.model) || text(fields['default-model']);
  const keyName = text(fields['api-key-name']);
  let apiKey = text(request.apiKey) || undefined;
  let keyWithheld = false;
  if (!apiKey && keyName) {
    const stored = getApiKey(keyName);
    if (stored && savedOrigins(wiki, keyName).has(origin(baseUrl))) apiKey = stored;
    else keyWithheld = !!stored;
  }
  const result: ProviderTestResult = await probeProvider({ api: text(fields.api), baseUrl, apiKey, model }, fetch, AbortSignal.timeout(TIMEOUT_MS));
  if (apiKey && result.detail) result.detail = result.detail.split(apiKey).join('***');
  if (keyWithheld) result.keyWithheld = true;
  if (keyName && !apiKey && !keyWithheld) result.noKey = true;
  return result;
}

function savedOrigins(wiki: WikiPort, keyName: string): Set<string> {
  const origins = new Set<string>();
  for (const title of wiki.filter(PROFILES)) {
    const fields = wiki.getFields(title);
    if (fields?.['api-key-name']?.trim() === keyName) origins.add(origin(fields['base-url']?.trim() ?? ''));
  }
  origins.delete('');
  return origins;
}

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

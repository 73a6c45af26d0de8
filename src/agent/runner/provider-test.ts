/*\
"Test the connection" for a provider profile, where turns run (this page, or the server in
the server edition): the profile's API and its saved values, overridden by what the user
typed and has not saved (base URL, model, key). A key the user typed is used as typed; the
stored key (password store or environment) goes only to an origin that a saved profile with
the same key name already calls, so a typed base URL cannot make this process send its key
elsewhere; under Node also only where the owner bound it (owner-policy.ts), and the address
itself must pass the owner's rules, as every call of the server does (outbound-node.ts). No
key the process knows comes back in the result, whole or in part, even when echoed.
\*/
import { probeProvider, type ProbeResult } from '../providers/probe';
import type { FetchFn } from '../providers/types';
import type { WikiPort } from '../store/wiki-port';
import { RunnerError } from './chat-runner';
import { scrubValue } from './scrub-secrets';

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

/** What the test needs of the runner's host. */
export interface ProviderTestHost {
  fetch: FetchFn;
  /** The stored key for a call to `url`; under Node it throws where the owner does not let it go there. */
  getApiKey(name: string, url: string): string | undefined;
  /** Why this process may not call `url` at all (Node: the owner's address rules), or undefined. */
  addressRefusal?(url: string): Promise<string | undefined>;
  /** Every secret this process may read (Node): the result is scrubbed of them all. */
  secrets?(): string[];
}

const PROFILES = '[all[shadows+tiddlers]tag[$:/tags/AI/Provider]!has[draft.of]]';
const TIMEOUT_MS = 20_000;

export async function testProvider(wiki: WikiPort, request: ProviderTestRequest, host: ProviderTestHost): Promise<ProviderTestResult> {
  if (typeof request?.profile !== 'string' || !wiki.filter(PROFILES).includes(request.profile)) {
    throw new RunnerError('not-found', `There is no provider profile "${String(request?.profile)}".`);
  }
  const fields = wiki.getFields(request.profile)!;
  const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
  const baseUrl = text(request.baseUrl) || text(fields['base-url']);
  const model = text(request.model) || text(fields['default-model']);
  const keyName = text(fields['api-key-name']);
  const refusal = await host.addressRefusal?.(baseUrl);
  if (refusal) return { ok: false, problem: 'refused', detail: refusal, models: [] };
  let apiKey = text(request.apiKey) || undefined;
  let keyWithheld = false;
  if (!apiKey && keyName) {
    let stored: string | undefined;
    try {
      stored = host.getApiKey(keyName, baseUrl);
    } catch (e) {
      return { ok: false, problem: 'refused', detail: e instanceof Error ? e.message : String(e), models: [] };
    }
    if (stored && savedOrigins(wiki, keyName).has(origin(baseUrl))) apiKey = stored;
    else keyWithheld = !!stored;
  }
  const probed: ProviderTestResult = await probeProvider({ api: text(fields.api), baseUrl, apiKey, model }, host.fetch, AbortSignal.timeout(TIMEOUT_MS));
  // Every key this process knows, whole or in part, from every field: a provider (or whatever answers) can echo them.
  const result = scrubValue(probed, [...(apiKey ? [apiKey] : []), ...(host.secrets?.() ?? [])]);
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

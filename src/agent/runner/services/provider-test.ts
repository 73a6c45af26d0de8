/*\
"Test the connection" for a provider profile, where turns run (this page, or the server in
the server edition): the profile's API and its saved values, overridden by what the user
typed and has not saved (base URL, model, key, whether it needs a key). The key is resolved
as a chat resolves it (api-key.ts), so the test fails where the chat would: a profile that
needs a key and has none fails before any call, with the chat's own words. A key the user
typed is used as typed (Save stores it); the stored key (password store or environment) goes
only to an origin that a saved profile with the same key name already calls, so a typed base
URL cannot make this process send its key elsewhere; under Node also only where the owner
bound it (owner-policy.ts), and the address itself must pass the owner's rules, as every call
of the server does (outbound-node.ts). No key the process knows comes back in the result,
whole or in part, even when echoed.
\*/
import { probeProvider, type ProbeResult } from '../../providers/probe';
import type { FetchFn } from '../../providers/types';
import { ConfigError } from '../../store/schemas';
import type { WikiPort } from '../../store/wiki-port';
import { profileApiKey, type KeySource } from '../api-key';
import { scrubValue } from '../host/scrub-secrets';
import { refuse } from '../refusals';

export interface ProviderTestRequest {
  /** The profile's title (tagged $:/tags/AI/Provider). */
  profile: string;
  /** The wire API as typed and not saved yet (a profile the user made); absent: the profile's. */
  api?: string;
  baseUrl?: string;
  model?: string;
  /** Typed and not saved yet; in the server edition never sent (the server uses its environment). */
  apiKey?: string;
  /** The key name as typed and not saved yet ('' = no key needed); absent: the profile's `api-key-name`. */
  keyName?: string;
}

export interface ProviderTestResult extends Omit<ProbeResult, 'problem'> {
  /** ProbeResult's problems, and `no-key`: the profile needs a key and none is stored or typed (`detail`: the chat's error). */
  problem?: ProbeResult['problem'] | 'no-key';
  /** The stored key was not sent: the typed base URL is an origin no saved profile with this key calls. */
  keyWithheld?: boolean;
}

/** What the test needs of the runner's host: its key source (a chat's, api-key.ts), its fetch and rules. */
export interface ProviderTestHost extends KeySource {
  fetch: FetchFn;
  /** Why this process may not call `url` at all (Node: the owner's address rules), or undefined. */
  addressRefusal?(url: string): Promise<string | undefined>;
  /** Every secret this process may read (Node): the result is scrubbed of them all. */
  secrets?(): string[];
}

const PROFILES = '[all[shadows+tiddlers]tag[$:/tags/AI/Provider]!has[draft.of]]';
const TIMEOUT_MS = 20_000;

export async function testProvider(wiki: WikiPort, request: ProviderTestRequest, host: ProviderTestHost): Promise<ProviderTestResult> {
  if (typeof request?.profile !== 'string' || !wiki.filter(PROFILES).includes(request.profile)) {
    throw refuse('not-found', 'no-such-profile', { profile: String(request?.profile) });
  }
  const fields = wiki.getFields(request.profile)!;
  const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
  const baseUrl = text(request.baseUrl) || text(fields['base-url']);
  const model = text(request.model) || text(fields['default-model']);
  const keyName = typeof request.keyName === 'string' ? request.keyName.trim() : text(fields['api-key-name']);
  const refusal = await host.addressRefusal?.(baseUrl);
  if (refusal) return { ok: false, problem: 'refused', detail: refusal, models: [] };
  const typed = text(request.apiKey);
  let apiKey: string | undefined;
  let keyWithheld = false;
  if (keyName && typed) apiKey = typed;
  else if (keyName) {
    let stored: string | undefined;
    try {
      stored = profileApiKey({ title: request.profile, caption: text(fields.caption) || undefined, 'api-key-name': keyName, 'base-url': baseUrl }, host);
    } catch (e) {
      const detail = e instanceof Error ? e.message : String(e);
      return { ok: false, problem: e instanceof ConfigError ? 'no-key' : 'refused', detail, models: [] };
    }
    if (savedOrigins(wiki, keyName).has(origin(baseUrl))) apiKey = stored;
    else keyWithheld = true;
  }
  const probed: ProviderTestResult = await probeProvider(
    { api: text(request.api) || text(fields.api), baseUrl, apiKey, model },
    host.fetch,
    AbortSignal.timeout(TIMEOUT_MS),
  );
  // Every key this process knows, whole or in part, from every field: a provider (or whatever answers) can echo them.
  const result = scrubValue(probed, [...(apiKey ? [apiKey] : []), ...(host.secrets?.() ?? [])]);
  if (keyWithheld) result.keyWithheld = true;
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

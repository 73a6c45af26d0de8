/*\
The key a call to a provider sends, resolved one way for a chat (LocalRunner.createModel), for
Test the connection (provider-test.ts) and for the embedding model (semantic-indexer.ts), so a
test fails where a chat would. A profile without `api-key-name` sends no key (a server on the
user's own machine or network); one with a name sends the key stored under it (this browser's
password store, or the server's environment as its owner allows: getApiKey throws KeyRefused
where it may not go), and without one nothing is called and the error says where to set it.
\*/
import { withHint } from '../engine/error-kinds';
import { ConfigError, type ProviderProfile } from '../store/schemas';

/** Where stored keys come from (RunnerHost), and where the user sets a missing one (`$name$`: the key's name). */
export interface KeySource {
  getApiKey(name: string, url: string): string | undefined;
  keyHint: string;
  /** The same advice's language key (`Error/Hint/<name>`), for the UI: `no-key` (default, a browser) or `no-key-server`. */
  keyHintName?: string;
}

type KeyedProfile = Pick<ProviderProfile, 'title' | 'caption' | 'api-key-name' | 'base-url'>;

/** The profile's key for a call to its base URL; undefined when it names none; a ConfigError when none is set. */
export function profileApiKey(profile: KeyedProfile, keys: KeySource): string | undefined {
  const name = profile['api-key-name']?.trim();
  if (!name) return undefined;
  const key = keys.getApiKey(name, profile['base-url']);
  if (!key)
    throw withHint(
      new ConfigError(
        profile.title,
        'api-key-name',
        `No API key is set for the provider "${profile.caption || profile.title}". ${keys.keyHint.replace('$name$', name)}`,
      ),
      keys.keyHintName ?? 'no-key',
    );
  return key;
}

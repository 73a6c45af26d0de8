// One key resolution for a chat, Test the connection and the embedding model (runner/api-key.ts):
// no key name, no key; a name with a stored key, that key, asked for the profile's base URL; a
// name without one, the error a chat shows, naming the provider and where to set the key; a
// refusal of the key source (the owner's rules under Node) passes through unchanged.
import { profileApiKey } from '../../../src/agent/runner/api-key';
import { ConfigError } from '../../../src/agent/store/schemas';

const profile = { title: '$:/providers/Local', caption: 'Local server', 'base-url': 'http://127.0.0.1:1234/v1' };
const asked: [string, string][] = [];
const keys = (stored: Record<string, string>) => ({
  getApiKey: (name: string, url: string) => {
    asked.push([name, url]);
    return stored[name];
  },
  keyHint: 'Enter "$name$" in the settings.',
});

beforeEach(() => (asked.length = 0));

test('a profile without a key name sends no key and asks for none', () => {
  expect(profileApiKey({ ...profile, 'api-key-name': undefined }, keys({ x: 'sk' }))).toBeUndefined();
  expect(profileApiKey({ ...profile, 'api-key-name': '  ' }, keys({ x: 'sk' }))).toBeUndefined();
  expect(asked).toEqual([]);
});

test('a key name with a stored key: that key, asked for the base URL the call goes to', () => {
  expect(profileApiKey({ ...profile, 'api-key-name': ' local-key ' }, keys({ 'local-key': 'sk-local' }))).toBe('sk-local');
  expect(asked).toEqual([['local-key', 'http://127.0.0.1:1234/v1']]);
});

test('a key name without a stored key: a ConfigError about the profile that says where to set it', () => {
  const error = (() => {
    try {
      profileApiKey({ ...profile, 'api-key-name': 'local-key' }, keys({}));
    } catch (e) {
      return e;
    }
  })() as ConfigError;
  expect(error).toBeInstanceOf(ConfigError);
  expect(error.tiddler).toBe('$:/providers/Local');
  expect(error.field).toBe('api-key-name');
  expect(error.message).toBe('No API key is set for the provider "Local server". Enter "local-key" in the settings.');
});

test('a refusal of the key source passes through', () => {
  const refusing = {
    getApiKey: () => {
      throw new Error('not to this origin');
    },
    keyHint: '',
  };
  expect(() => profileApiKey({ ...profile, 'api-key-name': 'k' }, refusing)).toThrow('not to this origin');
});

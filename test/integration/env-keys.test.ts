// Keys on Node (the server edition, the headless command) come from the environment, as the
// owner's configuration allows (runner/host/owner-policy.ts): a key name is read only when the owner
// lists it (or it is one of the shipped profiles' keys), from its variable (the name, or the usual
// OPENAI_API_KEY form), and handed out only for an origin it is bound to.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { agentLib, bootWiki, type TW } from '../helpers/tw';

let $tw: TW;
const saved = process.env.TIDDLYAGENT_CONFIG;
beforeAll(async () => {
  $tw = await bootWiki();
});

afterEach(() => {
  for (const name of ['tiddlyagent-test-api-key', 'TIDDLYAGENT_TEST_API_KEY', 'OPENAI_API_KEY', 'DATABASE_PASSWORD']) delete process.env[name];
  process.env.TIDDLYAGENT_CONFIG = saved;
});

test("a shipped key is read from OPENAI_API_KEY and given only for its provider's origin", () => {
  const { getSecret } = agentLib($tw);
  delete process.env.TIDDLYAGENT_CONFIG;
  process.env.OPENAI_API_KEY = 'sk-owner';
  expect(getSecret('openai-api-key', 'https://api.openai.com/v1')).toBe('sk-owner');
  expect(() => getSecret('openai-api-key', 'https://attacker.example/v1')).toThrow(/may be sent only to https:\/\/api\.openai\.com/);
  expect(() => getSecret('openai-api-key', 'https://api.openai.com.attacker.example/v1')).toThrow(/may be sent only/);
});

test('a key name the owner does not list is never read, whatever the environment holds', () => {
  const { getSecret } = agentLib($tw);
  delete process.env.TIDDLYAGENT_CONFIG;
  process.env.DATABASE_PASSWORD = 'db-secret';
  expect(() => getSecret('DATABASE_PASSWORD', 'https://attacker.example')).toThrow(/not one this server may use/);
  expect(() => getSecret('database-password', 'https://attacker.example')).toThrow(/not one this server may use/);
});

test('the owner lists a key: its variable, its origins; the dashed name falls back to the usual form', () => {
  const { getSecret } = agentLib($tw);
  process.env.TIDDLYAGENT_CONFIG = JSON.stringify({ keys: { 'tiddlyagent-test-api-key': { origins: ['https://llm.internal.example:8443'] } } });
  expect(getSecret('tiddlyagent-test-api-key', 'https://llm.internal.example:8443/v1')).toBeUndefined();
  process.env.TIDDLYAGENT_TEST_API_KEY = 'sk-from-usual-form';
  expect(getSecret('tiddlyagent-test-api-key', 'https://llm.internal.example:8443/v1')).toBe('sk-from-usual-form');
  process.env['tiddlyagent-test-api-key'] = 'sk-exact';
  expect(getSecret('tiddlyagent-test-api-key', 'https://llm.internal.example:8443/v1')).toBe('sk-exact');
  expect(() => getSecret('tiddlyagent-test-api-key', 'https://llm.internal.example/v1')).toThrow(/may be sent only/);
});

test('a configuration file inside the wiki folder, or a broken one, is refused: only the built-in keys remain', () => {
  const lib = agentLib($tw);
  const inside = path.join($tw.boot.wikiPath, 'agent-server-test.json');
  fs.writeFileSync(inside, JSON.stringify({ keys: { 'tiddlyagent-test-api-key': { origins: ['https://x.example'] } } }));
  const outside = path.join(os.tmpdir(), `agent-server-${process.pid}.json`);
  fs.writeFileSync(outside, '{"keys": ');
  const error = jest.spyOn(console, 'error').mockImplementation(() => {});
  try {
    process.env.TIDDLYAGENT_CONFIG = inside;
    expect(lib.ownerPolicy().problem).toMatch(/inside the wiki folder/);
    expect(() => lib.getSecret('tiddlyagent-test-api-key', 'https://x.example')).toThrow(/inside the wiki folder/);
    process.env.TIDDLYAGENT_CONFIG = outside;
    expect(lib.ownerPolicy().problem).toMatch(/cannot be used/);
    expect([...lib.ownerPolicy().keys.keys()].sort()).toEqual(['anthropic-api-key', 'gemini-api-key', 'openai-api-key']);
  } finally {
    error.mockRestore();
    fs.rmSync(inside, { force: true });
    fs.rmSync(outside, { force: true });
  }
});

test('a configuration that is not what it should be says what is wrong', () => {
  const { parseOwnerPolicy } = agentLib($tw);
  expect(() => parseOwnerPolicy({ keys: { k: { origins: ['not a url'] } } }, 'test')).toThrow(/not an http\(s\) origin/);
  expect(() => parseOwnerPolicy({ keys: { k: {} } }, 'test')).toThrow(/at least one origin/);
  expect(() => parseOwnerPolicy({ mcpCommand: [] }, 'test')).toThrow(/unknown setting "mcpCommand"/);
  expect(() => parseOwnerPolicy({ mcpCommands: [{ args: [] }] }, 'test')).toThrow(/must have a "command"/);
  expect(parseOwnerPolicy({ builtinKeys: false }, 'test').keys.size).toBe(0);
});

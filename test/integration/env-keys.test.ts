// Keys on Node (the server edition, the headless command) come from the environment variable a
// provider profile names. Shells cannot set `openai-api-key`, so the usual form
// `OPENAI_API_KEY` works too; the exact name wins when both are set.
import { agentLib, bootWiki, type TW } from '../helpers/tw';

let $tw: TW;
beforeAll(async () => {
  $tw = await bootWiki();
});

afterEach(() => {
  delete process.env['tiddlyagent-test-api-key'];
  delete process.env.TIDDLYAGENT_TEST_API_KEY;
});

test('a key named with dashes is read from the variable in capitals with underscores', () => {
  const { getSecret } = agentLib($tw);
  expect(getSecret('tiddlyagent-test-api-key')).toBeUndefined();
  process.env.TIDDLYAGENT_TEST_API_KEY = 'sk-from-usual-form';
  expect(getSecret('tiddlyagent-test-api-key')).toBe('sk-from-usual-form');
  process.env['tiddlyagent-test-api-key'] = 'sk-exact';
  expect(getSecret('tiddlyagent-test-api-key')).toBe('sk-exact');
});

// parseTiddler with the DESIGN 4 schemas: string fields become typed values, and a bad field is reported by tiddler, field and value.
import { AgentDefinitionSchema, ChatSchema, ConfigError, MessageSchema, ProviderProfileSchema, parseTiddler } from '../../../src/agent/store/schemas';
import { parseTitleList, stringifyTitleList } from '../../../src/agent/store/wiki-port';

const AGENT = { title: 'My Agent', 'agent-provider': '$:/providers/openai' };
const PROVIDER = { title: 'My Provider', api: 'openai-chat', 'base-url': 'https://api.openai.com/v1' };
const CHAT = { title: 'A chat', agent: 'My Agent' };
const MESSAGE = { title: '$:/ai/messages/A chat/000003', 'agent-chat': 'A chat', 'agent-seq': '3', role: 'assistant' };

/** Parse and return the ConfigError it throws (failing the test when nothing is thrown). */
function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError, but the tiddler parsed');
}

describe('valid tiddlers parse to typed values', () => {
  test('agent definition: numbers, a title list with [[spaced titles]], text defaulting to empty', () => {
    const agent = parseTiddler(AgentDefinitionSchema, 'Agent definition', {
      ...AGENT,
      caption: 'Helper',
      'agent-model': 'gpt-4o-mini',
      'agent-tools': 'wiki-search [[read tiddler]]  list-tiddlers',
      'agent-max-rounds': ' 7 ',
      'agent-context-window': '8000',
      'agent-temperature': '0.25',
    });
    expect(agent).toMatchObject({
      title: 'My Agent',
      text: '',
      caption: 'Helper',
      'agent-provider': '$:/providers/openai',
      'agent-model': 'gpt-4o-mini',
      'agent-tools': ['wiki-search', 'read tiddler', 'list-tiddlers'],
      'agent-max-rounds': 7,
      'agent-context-window': 8000,
      'agent-temperature': 0.25,
    });
  });

  test('provider profile: api, url, model list, limits and timeout', () => {
    const profile = parseTiddler(ProviderProfileSchema, 'Provider profile', {
      ...PROVIDER,
      models: 'gpt-4o [[my local model]]',
      'default-model': 'gpt-4o',
      'context-window': '128000',
      'max-output': '4096',
      'api-key-name': 'openai-api-key',
      timeout: '30',
    });
    expect(profile).toMatchObject({
      api: 'openai-chat',
      'base-url': 'https://api.openai.com/v1',
      models: ['gpt-4o', 'my local model'],
      'context-window': 128000,
      'max-output': 4096,
      'api-key-name': 'openai-api-key',
      timeout: 30,
    });
  });

  test('chat: a missing or blank status means idle; a given status is kept', () => {
    expect(parseTiddler(ChatSchema, 'Chat', CHAT)['agent-status']).toBe('idle');
    expect(parseTiddler(ChatSchema, 'Chat', { ...CHAT, 'agent-status': ' ' })['agent-status']).toBe('idle');
    expect(parseTiddler(ChatSchema, 'Chat', { ...CHAT, 'agent-status': 'input-required', 'agent-parent': 'Other chat' })).toMatchObject({
      agent: 'My Agent',
      'agent-status': 'input-required',
      'agent-parent': 'Other chat',
    });
  });

  test('message: seq, round, finish, tokens and attachments', () => {
    const message = parseTiddler(MessageSchema, 'Message', {
      ...MESSAGE,
      text: "''hi''",
      type: 'text/vnd.tiddlywiki',
      'agent-round': '2',
      'agent-finish': 'stop',
      model: 'mock-model',
      'tokens-in': '120',
      'tokens-out': '0',
      'tool-status': 'ok',
      attachments: '[[Some Tiddler]] Other',
    });
    expect(message).toMatchObject({
      text: "''hi''",
      'agent-seq': 3,
      role: 'assistant',
      'agent-round': 2,
      'agent-finish': 'stop',
      'tokens-in': 120,
      'tokens-out': 0,
      'tool-status': 'ok',
      attachments: ['Some Tiddler', 'Other'],
    });
    expect(parseTiddler(MessageSchema, 'Message', MESSAGE).text).toBe('');
  });
});

describe('blank optional fields count as absent', () => {
  test('agent definition', () => {
    const agent = parseTiddler(AgentDefinitionSchema, 'Agent definition', {
      ...AGENT,
      'agent-max-rounds': '',
      'agent-context-window': '   ',
      'agent-temperature': '',
      'agent-tools': '',
    });
    expect(agent['agent-max-rounds']).toBeUndefined();
    expect(agent['agent-context-window']).toBeUndefined();
    expect(agent['agent-temperature']).toBeUndefined();
    expect(agent['agent-tools']).toEqual([]);
  });

  test('provider profile', () => {
    const profile = parseTiddler(ProviderProfileSchema, 'Provider profile', { ...PROVIDER, 'max-output': '', timeout: ' ', 'context-window': '', models: '' });
    expect(profile['max-output']).toBeUndefined();
    expect(profile.timeout).toBeUndefined();
    expect(profile['context-window']).toBeUndefined();
    expect(profile.models).toEqual([]);
  });

  test('message', () => {
    const message = parseTiddler(MessageSchema, 'Message', { ...MESSAGE, 'agent-finish': '', 'tokens-in': '', 'agent-round': ' ', 'tool-status': '' });
    expect(message['agent-finish']).toBeUndefined();
    expect(message['tokens-in']).toBeUndefined();
    expect(message['agent-round']).toBeUndefined();
    expect(message['tool-status']).toBeUndefined();
  });
});

type Case = [string, Parameters<typeof parseTiddler>[0], string, Record<string, string>, string, string, RegExp];
const BAD: Case[] = [
  ['agent: rounds not a number', AgentDefinitionSchema, 'Agent definition', AGENT, 'agent-max-rounds', 'abc', /whole number/],
  ['agent: rounds below 1', AgentDefinitionSchema, 'Agent definition', AGENT, 'agent-max-rounds', '0', /at least 1/],
  ['agent: rounds a fraction', AgentDefinitionSchema, 'Agent definition', AGENT, 'agent-max-rounds', '2.5', /whole number/],
  ['agent: temperature too high', AgentDefinitionSchema, 'Agent definition', AGENT, 'agent-temperature', '3', /at most 2/],
  ['agent: temperature a word', AgentDefinitionSchema, 'Agent definition', AGENT, 'agent-temperature', 'hot', /must be a number/],
  ['agent: context window too small', AgentDefinitionSchema, 'Agent definition', AGENT, 'agent-context-window', '100', /at least 256/],
  ['agent: blank provider', AgentDefinitionSchema, 'Agent definition', AGENT, 'agent-provider', '  ', /provider profile/],
  ['provider: unknown api', ProviderProfileSchema, 'Provider profile', PROVIDER, 'api', 'nonsense', /must be one of: openai-chat/],
  ['provider: base-url not a URL', ProviderProfileSchema, 'Provider profile', PROVIDER, 'base-url', 'not a url', /http\(s\) URL/],
  ['provider: base-url without scheme', ProviderProfileSchema, 'Provider profile', PROVIDER, 'base-url', 'api.openai.com/v1', /http\(s\) URL/],
  ['provider: timeout zero', ProviderProfileSchema, 'Provider profile', PROVIDER, 'timeout', '0', /at least 1/],
  ['provider: negative max-output', ProviderProfileSchema, 'Provider profile', PROVIDER, 'max-output', '-5', /at least 1/],
  ['chat: unknown status', ChatSchema, 'Chat', CHAT, 'agent-status', 'sleeping', /must be one of: idle/],
  ['chat: blank agent', ChatSchema, 'Chat', CHAT, 'agent', ' ', /agent definition/],
  ['message: seq not a number', MessageSchema, 'Message', MESSAGE, 'agent-seq', 'x', /whole number/],
  ['message: negative seq', MessageSchema, 'Message', MESSAGE, 'agent-seq', '-1', /at least 0/],
  ['message: unknown role', MessageSchema, 'Message', MESSAGE, 'role', 'robot', /must be one of: user, assistant, tool, error/],
  ['message: unknown finish', MessageSchema, 'Message', MESSAGE, 'agent-finish', 'done', /must be one of: stop/],
  ['message: unknown tool status', MessageSchema, 'Message', MESSAGE, 'tool-status', 'maybe', /must be one of: ok/],
  ['message: negative tokens', MessageSchema, 'Message', MESSAGE, 'tokens-out', '-3', /at least 0/],
];

test.each(BAD)('%s: ConfigError names the tiddler, the field and the bad value', (_name, schema, kind, base, field, value, reason) => {
  const fields = { ...base, [field]: value };
  const error = configError(() => parseTiddler(schema, kind, fields));
  expect(error.tiddler).toBe(base.title);
  expect(error.field).toBe(field);
  expect(error.message).toContain(`${kind} "${base.title}"`);
  expect(error.message).toContain(`"${field}"`);
  expect(error.message).toContain(`"${value}"`);
  expect(error.message).toMatch(reason);
});

test.each([
  ['agent without agent-provider', AgentDefinitionSchema, 'Agent definition', { title: 'Lonely agent' }, 'agent-provider'],
  ['provider without api', ProviderProfileSchema, 'Provider profile', { title: 'P', 'base-url': 'http://localhost:1/v1' }, 'api'],
  ['provider without base-url', ProviderProfileSchema, 'Provider profile', { title: 'P', api: 'openai-chat' }, 'base-url'],
  ['chat without agent', ChatSchema, 'Chat', { title: 'Orphan chat' }, 'agent'],
  ['message without role', MessageSchema, 'Message', { title: 'm', 'agent-chat': 'c', 'agent-seq': '0' }, 'role'],
] as [string, Parameters<typeof parseTiddler>[0], string, Record<string, string>, string][])(
  '%s: ConfigError says the field is missing',
  (_name, schema, kind, fields, field) => {
    const error = configError(() => parseTiddler(schema, kind, fields));
    expect(error.tiddler).toBe(fields.title);
    expect(error.field).toBe(field);
    expect(error.message).toBe(`${kind} "${fields.title}": the field "${field}" is missing.`);
  },
);

describe('title lists', () => {
  test('parse TiddlyWiki string lists', () => {
    expect(parseTitleList(undefined)).toEqual([]);
    expect(parseTitleList('')).toEqual([]);
    expect(parseTitleList('  a   [[b c]]\td ')).toEqual(['a', 'b c', 'd']);
    expect(parseTitleList('[[$:/tags/AI/Agent]] [[two  spaces]]')).toEqual(['$:/tags/AI/Agent', 'two  spaces']);
  });

  test('stringify brackets only titles that need it', () => {
    expect(stringifyTitleList(['a', 'b c', '$:/x'])).toBe('a [[b c]] $:/x');
    expect(stringifyTitleList([])).toBe('');
  });

  test.each([[['one']], [['a', 'b c', 'd']], [['Wiki Assistant', '$:/plugins/x y/z', 'tab\there', 'émoji 🎉']], [['', 'x']]])('round trip %j', (titles) => {
    expect(parseTitleList(stringifyTitleList(titles))).toEqual(titles);
  });
});

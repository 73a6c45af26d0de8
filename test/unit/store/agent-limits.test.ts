// The agent's limits as stored (store/agent-limits.ts): the per-tool timeouts' JSON and each
// limit's bounds, shared by the schema, the engine and the settings form.
import { limitProblem, parseToolTimeouts } from '../../../src/agent/store/agent-limits';
import { toolTimeoutMs } from '../../../src/agent/engine/tool-executor';
import type { ToolContext, ToolDefinition } from '../../../src/agent/tools/tool';

test('per-tool timeouts: blank is none; whole seconds within 1..3600 per tool; anything else is named', () => {
  expect(parseToolTimeouts('')).toEqual({ ok: true, timeouts: {} });
  expect(parseToolTimeouts('{"web-fetch": 60, "wiki-search": 5}')).toMatchObject({ ok: true, timeouts: { 'web-fetch': 60, 'wiki-search': 5 } });
  expect(parseToolTimeouts('{"web-fetch": 0}')).toEqual({ ok: false, error: 'gives "web-fetch" 0: each timeout must be whole seconds from 1 to 3600' });
  expect(parseToolTimeouts('{"web-fetch": 1.5}').ok).toBe(false);
  expect(parseToolTimeouts('{"web-fetch": "60"}').ok).toBe(false);
  expect(parseToolTimeouts('[60]').ok).toBe(false);
  expect(parseToolTimeouts('{web-fetch: 60}')).toEqual({ ok: false, error: 'must be JSON such as {"web-fetch": 60}' });
});

test('a tool named like an Object method gets no inherited "timeout"', () => {
  const read = parseToolTimeouts('{"wiki-read": 7}');
  if (!read.ok) throw new Error('not ok');
  const context = { agent: { 'agent-tool-timeouts': read.timeouts } } as unknown as ToolContext;
  const tool = (name: string, timeoutMs?: number) => ({ name, timeoutMs }) as unknown as ToolDefinition;
  expect(toolTimeoutMs(tool('wiki-read', 60_000), context, 30_000)).toBe(7000);
  expect(toolTimeoutMs(tool('toString'), context, 30_000)).toBe(30_000);
  expect(toolTimeoutMs(tool('constructor', 45_000), context)).toBe(45_000);
});

test('each limit: whole or decimal, within its bounds, blank allowed', () => {
  expect(limitProblem('agent-tool-timeout', '')).toBeUndefined();
  expect(limitProblem('agent-tool-timeout', '30')).toBeUndefined();
  expect(limitProblem('agent-tool-timeout', '0')).toBe('range');
  expect(limitProblem('agent-tool-timeout', '2.5')).toBe('number');
  expect(limitProblem('agent-retries', '0')).toBeUndefined();
  expect(limitProblem('agent-retries', '11')).toBe('range');
  expect(limitProblem('agent-retry-delay', '0.25')).toBeUndefined();
  expect(limitProblem('agent-retry-delay', '-1')).toBe('number');
  expect(limitProblem('agent-retry-max-delay', '601')).toBe('range');
});

/*\
An agent's limits on tools and model calls, as the agent definition stores them: how long a
tool call may run (`agent-tool-timeout` for every tool, `agent-tool-timeouts` per tool, as
JSON `{"web-fetch": 60}` in seconds) and how a failed model request is retried
(`agent-retries`, `agent-retry-delay`, `agent-retry-max-delay`, the delays in seconds). The
bounds live here, zod-free, so the schema (store/schemas.ts), the engine and the settings form
check a value the same way.
\*/

export const LIMITS = {
  'agent-tool-timeout': { min: 1, max: 3600, whole: true },
  'agent-retries': { min: 0, max: 10, whole: true },
  'agent-retry-delay': { min: 0, max: 60, whole: false },
  'agent-retry-max-delay': { min: 0, max: 600, whole: false },
} as const;
export type LimitField = keyof typeof LIMITS;

/** The bounds of one tool's own timeout, in seconds (those of `agent-tool-timeout`). */
export const TOOL_TIMEOUT = LIMITS['agent-tool-timeout'];

/** The defaults the engine uses when a field is empty (engine/retry.ts, engine/tool-executor.ts). */
export const LIMIT_DEFAULTS: Record<LimitField, number> = {
  'agent-tool-timeout': 30,
  'agent-retries': 2,
  'agent-retry-delay': 0.5,
  'agent-retry-max-delay': 8,
};

/** Why `value` cannot be stored in `field`: 'number' (not a number of the right kind) or 'range'; undefined when it can (blank included). */
export function limitProblem(field: LimitField, value: string): 'number' | 'range' | undefined {
  const text = value.trim();
  if (!text) return undefined;
  const { min, max, whole } = LIMITS[field];
  if (!(whole ? /^\d+$/ : /^\d+(\.\d+)?$/).test(text)) return 'number';
  const n = Number(text);
  return n < min || n > max ? 'range' : undefined;
}

/**
 * `agent-tool-timeouts` read: each tool's timeout in seconds. Blank is {}; anything else must
 * be a JSON object of tool names to whole seconds within TOOL_TIMEOUT; else the reason in words.
 */
export function parseToolTimeouts(json: string | undefined): { ok: true; timeouts: Record<string, number> } | { ok: false; error: string } {
  if (!json?.trim()) return { ok: true, timeouts: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return { ok: false, error: 'must be JSON such as {"web-fetch": 60}' };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    return { ok: false, error: 'must be a JSON object of tool names to seconds, such as {"web-fetch": 60}' };
  const timeouts: Record<string, number> = Object.create(null);
  for (const [tool, seconds] of Object.entries(raw)) {
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < TOOL_TIMEOUT.min || seconds > TOOL_TIMEOUT.max)
      return {
        ok: false,
        error: `gives "${tool}" ${JSON.stringify(seconds)}: each timeout must be whole seconds from ${TOOL_TIMEOUT.min} to ${TOOL_TIMEOUT.max}`,
      };
    timeouts[tool] = seconds;
  }
  return { ok: true, timeouts };
}

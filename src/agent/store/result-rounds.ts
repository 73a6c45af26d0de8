/*\
How long a bulky tool result stays in the prompt (issue 26): an agent's `agent-result-rounds`,
JSON keyed by tool name (or a prefix ending in `*`, e.g. `mcp-*`), each a number of rounds
(model calls after the result was written, 1-1000) or `"always"`. The engine applies it when
it writes a tool result (engine/result-expiry.ts), as the message's `agent-duration`.
\*/

/** Rounds, or `always` (the result never expires). */
export type ResultRounds = number | 'always';
export type ResultRoundsTable = Record<string, ResultRounds>;

export const MAX_RESULT_ROUNDS = 1000;

const EXAMPLE = 'e.g. {"web-fetch": 2, "wiki-search": "always", "mcp-*": 4}';

/** Parse the field; throws a plain sentence naming what is wrong. */
export function parseResultRounds(text: string): ResultRoundsTable {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`must be JSON: a tool name and its rounds each, ${EXAMPLE}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`must be a JSON object, ${EXAMPLE}`);
  const table: ResultRoundsTable = {};
  for (const [tool, rounds] of Object.entries(value as Record<string, unknown>)) {
    if (rounds === 'always') table[tool] = 'always';
    else if (typeof rounds === 'number' && Number.isInteger(rounds) && rounds >= 1 && rounds <= MAX_RESULT_ROUNDS) table[tool] = rounds;
    else throw new Error(`"${tool}" must be a whole number of rounds from 1 to ${MAX_RESULT_ROUNDS}, or "always" (${EXAMPLE})`);
  }
  return table;
}

/** The entry for a tool: its own name first, then the longest matching `prefix*`; undefined when none. */
export function roundsFor(table: ResultRoundsTable | undefined, tool: string): ResultRounds | undefined {
  if (!table) return undefined;
  if (Object.hasOwn(table, tool)) return table[tool];
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (!key.endsWith('*')) continue;
    const prefix = key.slice(0, -1);
    if (tool.startsWith(prefix) && (best === undefined || prefix.length > best.length - 1)) best = key;
  }
  return best === undefined ? undefined : table[best];
}

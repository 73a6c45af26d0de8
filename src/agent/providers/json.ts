/*\
Lenient reading of provider JSON: payloads vary by server, so adapters check shapes as they go.
\*/

export function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A string that carries something: servers send "" and null for "nothing". */
export function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Tool-call arguments as an object, whether kept as JSON text or as an object; else `{}`. */
export function argsObject(args: unknown): Record<string, unknown> {
  const value = typeof args === 'string' ? tryParse(args) : args;
  return isObject(value) ? value : {};
}

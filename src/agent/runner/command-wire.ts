/*\
How a command or query travels to the server edition: POST /agent/<kind> with its fields as
the JSON body (runner/remote-runner.ts sends it, server/actions.ts receives it). Zod-free: the
page's bundle carries it.
\*/

/**
 * Fields only a caller in this process may set: over HTTP (and from RemoteRunner) they are
 * dropped, so a writer cannot pass a message off as a schedule's, and a key typed in a page is
 * never sent to the server (which tests with its own).
 */
export const IN_PROCESS_ONLY: { readonly [kind: string]: readonly string[] } = { send: ['source'], 'provider-test': ['apiKey'] };

/** A command's or query's fields without its kind: the body of POST /agent/<kind>. */
export function wireFields(request: { kind: string }): Record<string, unknown> {
  const drop = ['kind', ...(IN_PROCESS_ONLY[request.kind] ?? [])];
  return Object.fromEntries(Object.entries(request).filter(([key, value]) => !drop.includes(key) && value !== undefined));
}

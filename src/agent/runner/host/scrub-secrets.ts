/*\
Scrubbing secrets out of what is shown to a user: every key, whole or in part. A server's
answer can echo a key, and an excerpt of it (cut at some length) can hold only its start or
its end, so any run of at least FRAGMENT characters that also occurs in a secret is masked.
\*/

/** Shorter runs are left: they cannot be told from ordinary text, and reveal nothing usable. */
const FRAGMENT = 6;
const MASK = '***';

/** `text` with every run of FRAGMENT or more characters that occurs in one of `secrets` masked. */
export function scrubText(text: string, secrets: readonly string[]): string {
  const keys = secrets.filter((s) => s.length >= FRAGMENT);
  const short = secrets.filter((s) => s && s.length < FRAGMENT);
  for (const s of short) text = text.split(s).join(MASK);
  if (!keys.length || text.length < FRAGMENT) return text;
  const grams = new Set<string>();
  for (const key of keys) for (let i = 0; i + FRAGMENT <= key.length; i++) grams.add(key.slice(i, i + FRAGMENT));
  const masked = new Uint8Array(text.length);
  let any = false;
  for (let i = 0; i + FRAGMENT <= text.length; i++) {
    if (!grams.has(text.slice(i, i + FRAGMENT))) continue;
    masked.fill(1, i, i + FRAGMENT);
    any = true;
  }
  if (!any) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (!masked[i]) out += text[i];
    else if (i === 0 || !masked[i - 1]) out += MASK;
  }
  return out;
}

/** Every string in a JSON-like value scrubbed (a copy; keys of objects too). */
export function scrubValue<T>(value: T, secrets: readonly string[]): T {
  if (!secrets.some(Boolean)) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrubText(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [scrubText(k, secrets), walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/*\
What the user reads when the runner refuses a request (a RunnerError, in this page or from the
server): its reason in the UI's language (runner/refusals.ts names each reason's language key),
with the English message kept after it as the detail. In English, or for a reason the language
has not translated, the English message alone.
\*/
import { fillIn } from '../runner/lingo';
import { translation } from './lingo';

interface TextWiki {
  getTiddlerText(title: string, fallback?: string): string | undefined;
}

interface Reasoned {
  reason?: { key: string; params: Record<string, string> };
}

export function requestErrorText(wiki: TextWiki, error: unknown): string {
  // Any realm's Error (TiddlyWiki's module sandbox has its own).
  const message = (error as { message?: unknown } | null)?.message;
  const detail = typeof message === 'string' ? message : String(error);
  const reason = (error as Reasoned | undefined)?.reason;
  if (!reason || !/^[A-Za-z][\w/-]*$/.test(reason.key)) return detail;
  const template = translation(wiki, reason.key)?.trim();
  if (!template) return detail;
  return `${fillIn(template, reason.params)} (${detail})`;
}

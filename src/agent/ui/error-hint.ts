/*\
What the user can do about an error, in the UI's language. The English detail under an error's
headline already says it (it is written once, in English, for every reader: the chat, the
headless command, an export); a translation says it again in the user's language from the
message's `error-hint` (or, without one, its `error-kind`): language keys `Error/Hint/<key>`.
So the line shows only where the UI's language has that key translated.
\*/
import { translationOf, type ReadText } from '../runner/lingo';

/** The translated hint for an error message's fields, or undefined (English, or no translation). */
export function errorHintText(read: ReadText, fields: Record<string, unknown>): string | undefined {
  for (const key of [fields['error-hint'], fields['error-kind']]) {
    if (typeof key !== 'string' || !/^[a-z][a-z-]*$/.test(key)) continue;
    const text = translationOf(read, `Error/Hint/${key}`)?.trim();
    if (text) return text;
  }
  return undefined;
}

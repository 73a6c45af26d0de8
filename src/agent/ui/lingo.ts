/*\
The UI's words in the wiki's language (the lookup is runner/lingo.ts), read from a TiddlyWiki
wiki. Wikitext uses the same lookup through the global procedure <<ai-lingo "Key">>
(language/lingo.tid).
\*/
import { languageCodeOf, lingoOf, translationOf, type ReadText } from '../runner/lingo';

export { LANGUAGE, LANGUAGE_SETTING } from '../runner/lingo';

interface TextWiki {
  getTiddlerText(title: string, fallback?: string): string | undefined;
}

const reader =
  (wiki: TextWiki): ReadText =>
  (title) =>
    wiki.getTiddlerText(title) ?? undefined;

/** The language code the UI follows (`en-GB` when none is set). */
export function languageCode(wiki: TextWiki): string {
  return languageCodeOf(reader(wiki));
}

/** The text of the UI string `key` in the wiki's language, else in English, else ''. */
export function lingo(wiki: TextWiki, key: string): string {
  return lingoOf(reader(wiki), key);
}

/** The text of the UI string `key` in the wiki's language, when that is not English and has it; else undefined. */
export function translation(wiki: TextWiki, key: string): string | undefined {
  return translationOf(reader(wiki), key);
}

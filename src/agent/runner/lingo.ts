/*\
The UI's words in the wiki's language, for every layer above the engine. English strings are
shadow tiddlers under LANGUAGE (src/agent/language/en-GB.multids); a translation lives under
LANGUAGE + '<code>/' (e.g. zh-Hans.multids) and wins while `$:/language` names that language.
A key without a translation falls back to English, so a half-translated language still reads.
`read` gives a tiddler's text (shadows included), or undefined when there is none.
The UI reads through ui/lingo.ts, wikitext through <<ai-lingo "Key">> (language/lingo.tid).
\*/

export const LANGUAGE = '$:/plugins/tiddlyagent/agent/language/';
/** The core tiddler naming the active language plugin, e.g. `$:/languages/zh-Hans`. */
export const LANGUAGE_SETTING = '$:/language';

export type ReadText = (title: string) => string | undefined;

/** The language code the UI follows (`en-GB` when none is set). */
export function languageCodeOf(read: ReadText): string {
  const setting = (read(LANGUAGE_SETTING) ?? '').trim();
  return setting.startsWith('$:/languages/') ? setting.slice('$:/languages/'.length) : 'en-GB';
}

/** The text of the UI string `key` in the wiki's language, when that is not English and has it; else undefined. */
export function translationOf(read: ReadText, key: string): string | undefined {
  const code = languageCodeOf(read);
  return code === 'en-GB' ? undefined : (read(`${LANGUAGE}${code}/${key}`) ?? undefined);
}

/** The English text of the UI string `key`, else undefined. */
export function englishOf(read: ReadText, key: string): string | undefined {
  return read(LANGUAGE + key) ?? undefined;
}

/** The text of the UI string `key` in the wiki's language, else in English, else ''. */
export function lingoOf(read: ReadText, key: string): string {
  return translationOf(read, key) ?? englishOf(read, key) ?? '';
}

/** A language string with its `$name$` places filled from `params` (a place without a value stays as it is). */
export function fillIn(template: string, params: Readonly<Record<string, string | number>>): string {
  return template.replace(/\$([a-z]+)\$/g, (place, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : place));
}

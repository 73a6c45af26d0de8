/*\
The UI's words in the wiki's language. English strings are shadow tiddlers under LANGUAGE
(src/agent/language/en-GB.multids); a translation lives under LANGUAGE + '<code>/' (e.g.
zh-Hans.multids) and wins while `$:/language` names that language. A key without a
translation falls back to English, so a half-translated language still reads.
Wikitext uses the same lookup through the global procedure <<ai-lingo "Key">> (language/lingo.tid).
\*/

export const LANGUAGE = '$:/plugins/tiddlyagent/agent/language/';
/** The core tiddler naming the active language plugin, e.g. `$:/languages/zh-Hans`. */
export const LANGUAGE_SETTING = '$:/language';

interface TextWiki {
  getTiddlerText(title: string, fallback?: string): string | undefined;
}

/** The language code the UI follows (`en-GB` when none is set). */
export function languageCode(wiki: TextWiki): string {
  const setting = (wiki.getTiddlerText(LANGUAGE_SETTING, '') ?? '').trim();
  return setting.startsWith('$:/languages/') ? setting.slice('$:/languages/'.length) : 'en-GB';
}

/** The text of the UI string `key` in the wiki's language, else in English, else ''. */
export function lingo(wiki: TextWiki, key: string): string {
  const code = languageCode(wiki);
  if (code !== 'en-GB') {
    const translated = wiki.getTiddlerText(`${LANGUAGE}${code}/${key}`);
    if (translated !== undefined && translated !== null) return translated;
  }
  return wiki.getTiddlerText(LANGUAGE + key, '') ?? '';
}

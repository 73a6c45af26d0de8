/*\
Chat titles: which a chat may take (rename, automatic title), and the automatic title itself.
A chat's title is the key of everything it owns, and its title ends up in the story river,
in lists and in filters, so a title must not be blank, a system title (`$:/…`: hidden, or
worse, a shadow a plugin ships), an existing tiddler (its owner's note would be overwritten)
or hold what breaks a link or a list (`[[`, `]]`, `|`, `{{`, `}}`, a newline). The same check
guards the title a model suggests: it is untrusted text.
\*/
import type { WikiPort } from './wiki-port';

export type TitleProblem = 'blank' | 'system' | 'unsafe' | 'too-long' | 'exists';

/** The longest title a chat may take. */
export const MAX_CHAT_TITLE = 120;
/** The longest title derived from the first message. */
export const DERIVED_TITLE_LENGTH = 48;
/** The same in a language written without spaces (Chinese, Japanese): characters carry more. */
export const DERIVED_TITLE_CHARACTERS = 16;
/** The most words of a title the model suggests. */
export const MAX_TITLE_WORDS = 6;
/** The most characters asked of a suggested title written without spaces (Chinese, Japanese)… */
export const MAX_TITLE_CHARACTERS = 12;
/** …and the most taken: models overshoot a character count more than a word count. */
const TAKEN_TITLE_CHARACTERS = 16;

/** Characters of the languages written without spaces between words. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
/** Punctuation a title does not end with (ASCII, CJK and full-width), nor start with (CJK). */
const EDGE_PUNCTUATION = /^[\s。，、；：！？…～·]+|[\s.,;:!?\-–—/。，、；：！？…～·]+$/g;
/** Quote and bracket pairs a model wraps a whole title in. */
const WRAPPERS: [string, string][] = [
  ['「', '」'],
  ['『', '』'],
  ['《', '》'],
  ['【', '】'],
  ['‘', '’'],
  ["'", "'"],
];
/** Greetings that open a Chinese message but say nothing of its subject. */
const GREETING = /^(你好|您好|大家好|嗨|哈喽|早上好|下午好|晚上好)[\s，,！!。.~～]*/;

// biome-ignore lint/suspicious/noControlCharactersInRegex: a title with control characters is refused, so the pattern must find them
const UNSAFE = /\[\[|\]\]|\{\{|\}\}|\||[\r\n\u0000-\u001f\u007f\u2028\u2029]/;

/** What is wrong with `title` as a chat's new title, or undefined when it may take it. */
export function titleProblem(wiki: WikiPort, title: string): TitleProblem | undefined {
  if (typeof title !== 'string' || !title.trim()) return 'blank';
  if (title !== title.trim()) return 'unsafe';
  if (title.startsWith('$:/')) return 'system';
  if (UNSAFE.test(title)) return 'unsafe';
  if (title.length > MAX_CHAT_TITLE) return 'too-long';
  if (wiki.getFields(title)) return 'exists';
  return undefined;
}

/** Why a title was refused, for a RunnerError (the UI says it in the user's language). */
export function titleProblemText(title: string, problem: TitleProblem): string {
  switch (problem) {
    case 'blank':
      return 'A chat needs a title: the new title is blank.';
    case 'system':
      return `"${title}" is a system title ($:/…); a chat cannot take it.`;
    case 'unsafe':
      return `"${title}" holds characters a title cannot (leading or trailing spaces, [[, ]], {{, }}, |, or a line break).`;
    case 'too-long':
      return `A chat title may be at most ${MAX_CHAT_TITLE} characters long.`;
    case 'exists':
      return `A tiddler called "${title}" already exists; choose another title.`;
  }
}

/** Whether `title` is one the New chat control gives (`Chat`, `Chat 1`, …) for one of the base titles. */
export function isDefaultTitle(title: string, bases: string[]): boolean {
  return bases.some((base) => !!base && (title === base || (title.startsWith(`${base} `) && /^\d+$/.test(title.slice(base.length + 1)))));
}

/** How many characters of `text` belong to a language written without spaces. */
function unspacedCount(text: string): number {
  return (text.match(UNSPACED) ?? []).length;
}

/** Whether `text` is mostly written without spaces (Chinese, Japanese): then titles count characters, not words. */
export function writtenWithoutSpaces(text: string): boolean {
  const unspaced = unspacedCount(text);
  return unspaced > 0 && unspaced * 4 >= (text.match(/[A-Za-z]/g) ?? []).length;
}

/** `text` without the quotes or brackets it is wrapped in as a whole. */
function unwrap(text: string): string {
  for (let again = true; again; ) {
    again = false;
    for (const [open, close] of WRAPPERS) {
      if (text.length > 2 && text.startsWith(open) && text.endsWith(close)) {
        text = text.slice(open.length, -close.length).trim();
        again = true;
      }
    }
  }
  return text;
}

/** Text made into a title: markup and line breaks out, spaces collapsed, cut at a word within `max`. */
export function cleanTitle(raw: string, max = MAX_CHAT_TITLE): string {
  let text = String(raw ?? '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\[\[([^\]|]*\|)?([^\]]*)\]\]/g, '$2')
    .replace(/\{\{[^}]*\}\}/g, ' ')
    .replace(/[[\]{}|<>`*_~#=^"“”\\]+/g, ' ')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters become spaces in a title, so the pattern must find them
    .replace(/[\s\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
    .trim()
    .replace(/^(\$:\/)+/, '');
  text = unwrap(text.replace(EDGE_PUNCTUATION, '')).replace(EDGE_PUNCTUATION, '').trim();
  if (text.length > max) {
    const cut = text.slice(0, max);
    const space = cut.lastIndexOf(' ');
    text = (space > max / 2 ? cut.slice(0, space) : cut).trim();
  }
  return text.replace(/^\$:\//, '').trim();
}

/**
 * The title of a chat from its first user message: its first words, without wikitext. In a
 * language written without spaces, its first sentence without an opening greeting, at most
 * DERIVED_TITLE_CHARACTERS characters: cut after a comma when one is past the middle, else
 * cut with an ellipsis.
 */
export function titleFromMessage(text: string): string {
  const whole = cleanTitle(text, MAX_CHAT_TITLE);
  if (!writtenWithoutSpaces(whole)) return cleanTitle(text, DERIVED_TITLE_LENGTH);
  const firstLine =
    String(text ?? '')
      .split(/\r?\n/)
      .map((line) => cleanTitle(line))
      .find(Boolean) ?? '';
  const subject = firstLine.replace(GREETING, '') || firstLine;
  const sentence = cleanTitle(subject.split(/[。！？!?]/).find((s) => s.trim()) ?? '');
  if ([...sentence].length <= DERIVED_TITLE_CHARACTERS) return sentence;
  const cut = [...sentence].slice(0, DERIVED_TITLE_CHARACTERS).join('');
  const comma = Math.max(...['，', '、', '；', '：', ',', ';'].map((mark) => cut.lastIndexOf(mark)));
  return comma > DERIVED_TITLE_CHARACTERS / 2 ? cleanTitle(cut.slice(0, comma)) : `${cleanTitle(cut)}…`;
}

/**
 * The model's suggestion made into a title, or undefined when it is unusable: empty, more
 * than MAX_TITLE_WORDS words (a reply, not a title), or nothing left once cleaned.
 */
export function titleFromSuggestion(raw: string): string | undefined {
  const firstLine =
    String(raw ?? '')
      .trim()
      .split(/\r?\n/)[0] ?? '';
  const unlabelled = firstLine.replace(/^(title|标题|題名|タイトル)\s*[:：]\s*/i, '');
  const title = cleanTitle(unlabelled, DERIVED_TITLE_LENGTH + 12);
  if (!title) return undefined;
  // Chinese and Japanese have no spaces between words: count characters there instead.
  if (title.split(/\s+/).length > MAX_TITLE_WORDS || unspacedCount(title) > TAKEN_TITLE_CHARACTERS) return undefined;
  return title;
}

/** `title`, or `title 2`, `title 3`… : the first that `titleProblem` accepts. */
export function uniqueTitle(wiki: WikiPort, title: string): string {
  if (!titleProblem(wiki, title)) return title;
  for (let n = 2; n < 1000; n++) if (!titleProblem(wiki, `${title} ${n}`)) return `${title} ${n}`;
  return `${title} ${Date.now().toString(36)}`;
}

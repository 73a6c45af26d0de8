/*\
Which tiddlers an approval pattern matches, for the settings' live list: the pattern is read
as the engine reads it (engine/approval.ts: a regular expression, case-insensitive) and tested
against every title the agent can see. A tiddler hidden from the agent (tools/visibility.ts:
chats, messages, `$:/ai/*`, secrets) is never tested, counted or listed, whatever the pattern.
A pattern that is not a regular expression gives its error instead of throwing.
\*/
import { isHiddenFromAgent } from '../../tools/visibility';

/** The titles and fields of a wiki: its tiddlers, then the shadows no tiddler overrides. */
export interface TitleSource {
  each(visit: (title: string, fields: Record<string, unknown> | undefined) => void): void;
}

export type PatternMatches = { error: string } | { count: number; titles: string[] };

/** How many titles a list shows. */
export const SHOWN = 10;

/** Whether `pattern` compiles, as the engine compiles it; the error's words when it does not. */
export function patternError(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'i');
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** The visible titles `pattern` matches: their count and the first `shown` (titles outside `$:/` first, each group in wiki order). */
export function patternMatches(source: TitleSource, pattern: string, shown = SHOWN): PatternMatches {
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'i');
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
  let count = 0;
  const plain: string[] = [];
  const system: string[] = [];
  source.each((title, fields) => {
    if (isHiddenFromAgent(title, fields) || !re.test(title)) return;
    count++;
    const list = title.startsWith('$:/') ? system : plain;
    if (list.length < shown) list.push(title);
  });
  return { count, titles: [...plain, ...system].slice(0, shown) };
}

/** A TitleSource over a TiddlyWiki wiki: its tiddlers and shadows, each title once. */
export function wikiTitles(wiki: {
  each(cb: (tiddler: { fields: Record<string, unknown> }, title: string) => void): void;
  eachShadow(cb: (tiddler: { fields: Record<string, unknown> }, title: string) => void): void;
  tiddlerExists(title: string): boolean;
}): TitleSource {
  return {
    each(visit) {
      wiki.each((tiddler, title) => visit(title, tiddler.fields));
      wiki.eachShadow((tiddler, title) => {
        if (!wiki.tiddlerExists(title)) visit(title, tiddler.fields);
      });
    },
  };
}

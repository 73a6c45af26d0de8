/*\
What the filter operators that describe tiddlers (`aimcp`, `aiprofile`, `aischedule`) share:
each input title's fields as the library's wiki port reads them (a missing tiddler is passed
over), and the strings the operator makes of them, in order.
\*/
import type { TiddlerFields } from '../store/wiki-port';

/** A filter operator's input: TiddlyWiki's iterator over the titles. */
export type Source = (iterator: (tiddler: unknown, title: string) => void) => void;

/** The strings `describe` makes of each input tiddler: a string counts unless it is '', a list as it is. */
export function describeEach(
  source: Source,
  port: { getFields(title: string): TiddlerFields | undefined },
  describe: (fields: TiddlerFields, title: string) => string | string[],
): string[] {
  const out: string[] = [];
  source((_tiddler, title) => {
    const fields = port.getFields(title);
    if (!fields) return;
    const value = describe(fields, title);
    if (Array.isArray(value)) out.push(...value);
    else if (value) out.push(value);
  });
  return out;
}

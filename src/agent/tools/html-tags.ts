/*\
The tags in a text (HTML elements and TiddlyWiki widgets) with their attributes, for the
checks of what a tiddler would load or run: the approval card's flags (active-content.ts)
and the write gate's refusal of script-bearing HTML (script-html.ts).

A tolerant scanner, not a parser, built so that nothing is missed rather than nothing is
over-read: every `<name` is a tag, wherever it stands (inside another tag's attribute, a
code block, a macro call: TiddlyWiki may parse an attribute's text again, as <$button
actions=…> and <$wikify text=…> do), and each tag's attributes are read twice, as TiddlyWiki
reads them ("""…""", <<…>>, {{…}}, `…`) and as a browser reads HTML, and both readings are
kept, so a value that one of them closes early cannot hide an attribute from the other.
\*/

export interface Attribute {
  /** As written, lower-cased. */
  name: string;
  /** The literal value, quotes removed ('' when there is none). */
  value: string;
  /** The value is worked out when the tiddler is shown (<<…>>, {{…}}, {{{…}}}, `…$(…)…`). */
  dynamic: boolean;
}

export interface Tag {
  /** Lower-cased; widgets keep their `$`. */
  name: string;
  attributes: Attribute[];
}

/** Every tag of `text`, in order. */
export function tagsIn(text: string): Tag[] {
  const tags: Tag[] = [];
  const open = /<([a-zA-Z$][^\s/>"'=<`]*)/g;
  for (let m = open.exec(text); m; m = open.exec(text)) {
    const readings = [readAttributes(text, open.lastIndex, true), readAttributes(text, open.lastIndex, false)];
    // Without a closing > it is no tag, for a browser or for TiddlyWiki ("a<b and c").
    if (!readings[0] && !readings[1]) continue;
    const attributes = readings.flatMap((r) => r ?? []);
    const seen = new Set<string>();
    tags.push({
      name: m[1]!.toLowerCase(),
      attributes: attributes.filter((a) => {
        const key = `${a.name}\u0000${a.value}`;
        return !seen.has(key) && !!seen.add(key);
      }),
    });
  }
  return tags;
}

/**
 * The event handler attribute (on…=) of an HTML element, or of <$genesis>, which hands its
 * attributes to the element it makes; other widgets take on… names as their own parameters
 * (<$let one=1>, a procedure's `only`), which never reach an element.
 */
export function eventHandler(tag: Tag): Attribute | undefined {
  if (tag.name.startsWith('$') && tag.name !== '$genesis') return undefined;
  return tag.attributes.find((a) => /^on[a-z]/.test(a.name));
}

/** The attributes from `i` to the end of the tag, as TiddlyWiki (`tw`) or a browser reads them; undefined when the tag never closes. */
function readAttributes(text: string, i: number, tw: boolean): Attribute[] | undefined {
  const out: Attribute[] = [];
  const at = (re: RegExp) => {
    re.lastIndex = i;
    const m = re.exec(text);
    return m ? m[0] : '';
  };
  /** The value between `start` (already at i) and the first `close` after it; to the end when unclosed. */
  const until = (start: number, close: string) => {
    const end = text.indexOf(close, i + start);
    const value = text.slice(i + start, end === -1 ? text.length : end);
    i = end === -1 ? text.length : end + close.length;
    return value;
  };
  for (;;) {
    i += at(/[\s/]*/y).length;
    if (i >= text.length) return undefined;
    if (text[i] === '>') return out;
    // A browser takes any run of characters up to whitespace, / > or = as a name (quotes too).
    const name = at(/[^\s/>=]+|=/y);
    i += name.length;
    i += at(/\s*/y).length;
    if (text[i] !== '=') {
      out.push({ name: name.toLowerCase(), value: '', dynamic: false });
      continue;
    }
    i += at(/=\s*/y).length;
    let value: string;
    let dynamic = false;
    const rest = text.slice(i, i + 3);
    if (tw && rest === '"""') value = until(3, '"""');
    else if (rest[0] === '"' || rest[0] === "'") value = until(1, rest[0]);
    else if (tw && rest.startsWith('<<')) [value, dynamic] = [until(2, '>>'), true];
    else if (tw && rest === '{{{') [value, dynamic] = [until(3, '}}}'), true];
    else if (tw && rest.startsWith('{{')) [value, dynamic] = [until(2, '}}'), true];
    else if (tw && rest === '```') value = until(3, '```');
    else if (tw && rest[0] === '`') value = until(1, '`');
    else {
      value = at(/[^\s>]*/y);
      i += value.length;
    }
    if (tw && rest[0] === '`') dynamic = /\$\(|\$\{/.test(value);
    out.push({ name: name.toLowerCase(), value, dynamic });
  }
}

const NAMED: Record<string, string> = {
  colon: ':',
  tab: '\t',
  newline: '\n',
  lpar: '(',
  rpar: ')',
  sol: '/',
  bsol: '\\',
  amp: '&',
  quot: '"',
  apos: "'",
  lt: '<',
  gt: '>',
  equals: '=',
  semi: ';',
  num: '#',
  period: '.',
  plus: '+',
  comma: ',',
  excl: '!',
  quest: '?',
  nbsp: '\u00a0',
  dollar: '$',
  percnt: '%',
};

/** Character references decoded as a browser decodes them in an attribute (numeric ones also without `;`), repeated while any is left. */
export function decodeEntities(text: string): string {
  for (let round = 0; round < 3; round++) {
    const decoded = text.replace(/&(?:#x([0-9a-f]+);?|#(\d+);?|([a-z]+);)/gi, (whole, hex?: string, dec?: string, name?: string) => {
      if (name) return NAMED[name.toLowerCase()] ?? whole;
      const code = hex ? parseInt(hex, 16) : parseInt(dec!, 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    });
    if (decoded === text) return text;
    text = decoded;
  }
  return text;
}

/** Text as a browser reads a URL in it: references decoded, tabs and line breaks (which URL parsing drops) removed. */
export function urlText(text: string): string {
  return decodeEntities(text).replace(/[\t\n\r]/g, '');
}

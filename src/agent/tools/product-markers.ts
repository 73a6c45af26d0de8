/*\
Text the product adds to what the agent is shown (a note that part of a text was left out, a
stand-in for an image's content, the line that marks trimmed history) is never part of a
tiddler. A model that copies a shown text back could write such a marker into a note, so the
write gate (write-gate.ts) refuses a change that adds one: a marker already in the tiddler's
fields (a manual that quotes one) may stay, a new one may not. The patterns match the markers
as the tools write them and the variants a model makes of them (another number, "..." for "…",
without the brackets, inside longer text); a unit test keeps them in step with the tools.
\*/
import type { TiddlerFields } from '../store/wiki-port';

/**
 * A number as a model may copy it: 12345, 12,345, 12 345. Every repeat in the patterns is
 * bounded (S: a few spaces): an unbounded one made a scan quadratic, minutes for a 1 MB line
 * of numbers on every write of it (a unit test times it).
 */
const N = String.raw`\d[\d,.'\u00a0\u202f ]{0,24}`;
const S = String.raw`\s{0,8}`;
const MIME = String.raw`[\w.+-]{1,80}/[\w.+-]{1,80}`;

/** The markers, each with what it is, for the refusal. */
const MARKERS: { what: string; pattern: RegExp }[] = [
  // wiki-read, wiki-search: "[… 1234 more characters not shown; …]", "[… 5 earlier characters not shown]"
  {
    what: 'a note that part of a text was not shown',
    pattern: new RegExp(String.raw`(?:\[${S}(?:…|\.{3})?|…|\.{3})${S}${N}${S}(?:more|earlier|further)\s{1,8}char(?:acter)?s?\b(?:[^\]\n]{0,160}\])?`, 'i'),
  },
  {
    what: 'a note that part of a text was not shown',
    pattern: new RegExp(String.raw`${N}${S}(?:more|earlier|further)${S}characters?\s{1,8}(?:were\s{1,8}|are\s{1,8})?not\s{1,8}shown`, 'i'),
  },
  // mcp-tools, wiki-toc, web-fetch: "[… cut at 20000 characters]", "[… outline cut at 300 lines; …]", "[Cut at 5 of 9 characters; …]"
  {
    what: 'a note that a result was cut',
    pattern: new RegExp(String.raw`(?:…|\.{3}|\[)${S}(?:outline\s{1,8})?cut\s{1,8}at\s{1,8}${N}${S}(?:of\s{1,8}${N}${S})?(?:characters|lines)`, 'i'),
  },
  // wiki-read, wiki-search, the Current tiddler: "(image/png content, 12 characters, not shown)", "(… image stored outside the wiki …)"
  {
    what: "a stand-in for a tiddler's content",
    pattern: new RegExp(String.raw`\(${S}${MIME}\s{1,8}(?:image|content)\b[^)\n]{0,200}\bnot\s{1,8}(?:shown|fetched)`, 'i'),
  },
  {
    what: "a stand-in for a tiddler's content",
    pattern: new RegExp(String.raw`\(${S}${MIME}\s{1,8}image,[^)\n]{0,200}attached to this result as an image`, 'i'),
  },
  { what: "a stand-in for a tiddler's content", pattern: /\(text not shown: result budget reached/i },
  // The engine: trimmed history, images a model cannot take, MCP parts
  { what: 'a note that messages were left out', pattern: new RegExp(String.raw`\[${S}${N}${S}earlier messages were left out`, 'i') },
  { what: 'a note that an image was not shown', pattern: /\[\s{0,8}(?:the image "[^"\n]{0,1000}"|an image this tool returned) is not shown/i },
  {
    what: 'a note that a part of a result was not shown',
    pattern: /\[\s{0,8}(?:image|audio)\s{0,8}\([^)\n]{0,200}\)[^\]\n]{0,200}not shown|\[\s{0,8}\w{1,40} content not shown\s{0,8}\]/i,
  },
  // The Current tiddler section when only a part of a large tiddler fits (engine/current-part.ts)
  { what: 'a note that only part of a tiddler was shown', pattern: /\[\s{0,8}only part of\b[^\]\n]{0,1200}\bis shown\b/i },
  { what: "a line of a tiddler's outline", pattern: /^@\d{1,12} (?:!{1,6}|#{1,6})/m },
  // The wrapper every tool result puts around a tiddler's content (tools/format.ts)
  { what: 'the wrapper tool results put around content', pattern: /<\\?\/?\s{0,8}(?:tiddler-data|web-content)\b/i },
];

/** Every marker in `text`, as found. */
export function markersIn(text: string): { what: string; found: string }[] {
  const out: { what: string; found: string }[] = [];
  for (const { what, pattern } of MARKERS) {
    const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
    for (const m of text.matchAll(global)) out.push({ what, found: m[0] });
  }
  return out;
}

/**
 * The first marker a change adds to a field: one the resulting tiddler holds more often than
 * the tiddlers it is made from did (`before`: every before-image of the change, so a rename
 * keeps the markers the old title held). Undefined when it adds none.
 */
export function addedMarker(after: TiddlerFields, before: TiddlerFields[]): { field: string; what: string; found: string } | undefined {
  for (const [field, value] of Object.entries(after)) {
    if (field === 'title' || !value) continue;
    const found = markersIn(value);
    if (!found.length) continue;
    const had = new Map<string, number>();
    for (const b of before) for (const m of markersIn(b[field] ?? '')) had.set(m.found, (had.get(m.found) ?? 0) + 1);
    for (const m of found) {
      const left = had.get(m.found) ?? 0;
      if (left <= 0) return { field, ...m };
      had.set(m.found, left - 1);
    }
  }
  return undefined;
}

/** The refusal for a marker a change would add to a tiddler. */
export function markerRefusal(title: string, marker: { field: string; what: string; found: string }): string {
  const where = marker.field === 'text' ? 'The text' : `The field "${marker.field}"`;
  return (
    `Refused: ${where} of "${title}" would contain "${marker.found.slice(0, 80)}", which is not part of any tiddler: it is ${marker.what}, ` +
    'added by TiddlyAgent to what a tool or your prompt showed you. Nothing was written. Write only the text itself; ' +
    'to change a long tiddler, use wiki-edit on the part you were shown (wiki-read with "offset" shows the rest).'
  );
}

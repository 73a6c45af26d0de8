// The changes between two texts as the approval card and the turn diff show them: the changed
// regions with a little context, word by word, and the whole text with every change marked.
import fc from 'fast-check';
import { changeRegions, diffText, diffWords, type Piece } from '../../../src/agent/tools/text-diff';

const side = (pieces: Piece[], kind: 'removed' | 'added') =>
  pieces
    .filter((p) => p.kind !== kind)
    .map((p) => p.text)
    .join('');
const oldText = (pieces: Piece[]) => side(pieces, 'added');
const newText = (pieces: Piece[]) => side(pieces, 'removed');
const shown = (pieces: Piece[]) => pieces.map((p) => (p.kind === 'same' ? p.text : p.kind === 'removed' ? `[-${p.text}-]` : `{+${p.text}+}`)).join('');

const PARAGRAPHS = Array.from(
  { length: 61 },
  (_, i) => `Paragraph ${i + 1}: the garden plan for week ${i + 1}, with notes on watering, weeding and what to plant next.`,
);
const LONG = PARAGRAPHS.join('\n\n');

test('the last line of a 61-paragraph text changed: one region, at its line, with two lines of context, word by word', () => {
  const after = LONG.replace(/Paragraph 61: .*$/, 'Paragraph 61: the season ends; the beds are covered for winter.');
  const regions = changeRegions(LONG, after);
  expect(regions).toHaveLength(1);
  const [region] = regions;
  expect(region!.line).toBe(121);
  expect(region!.removed).toEqual([PARAGRAPHS[60]]);
  expect(region!.added).toEqual(['Paragraph 61: the season ends; the beds are covered for winter.']);
  expect(region!.truncated).toBe(false);
  // The context: paragraph 60 and the blank line.
  expect(shown(region!.pieces)).toBe(
    'Paragraph 60: the garden plan for week 60, with notes on watering, weeding and what to plant next.\n\nParagraph 61: the [-garden plan for week 61, with notes on watering, weeding and what to plant next-]{+season ends; the beds are covered for winter+}.',
  );
});

test('identical texts have no region; distant changes are regions of their own, close ones share one', () => {
  expect(changeRegions(LONG, LONG)).toEqual([]);
  const lines = Array.from({ length: 40 }, (_, i) => `line ${i}`);
  const edited = [...lines];
  edited[3] = 'line three';
  edited[5] = 'line five';
  edited[30] = 'line thirty';
  const regions = changeRegions(lines.join('\n'), edited.join('\n'));
  expect(regions.map((r) => r.line)).toEqual([4, 31]);
  expect(regions[0]!.removed).toEqual(['line 3', 'line 5']);
  expect(shown(regions[0]!.pieces)).toBe('line 1\nline 2\nline [-3-]{+three+}\nline 4\nline [-5-]{+five+}\nline 6\nline 7');
  expect(shown(regions[1]!.pieces)).toBe('line 28\nline 29\nline [-30-]{+thirty+}\nline 31\nline 32');
});

test('a created text is one region put in whole, a deleted one taken out whole; lines put in or taken out keep their breaks', () => {
  expect(changeRegions('', 'One\nTwo')).toEqual([
    { line: 1, pieces: [{ kind: 'added', text: 'One\nTwo' }], removed: [], added: ['One', 'Two'], truncated: false },
  ]);
  expect(changeRegions('One\nTwo', '')[0]!.pieces).toEqual([{ kind: 'removed', text: 'One\nTwo' }]);
  expect(shown(diffText('A\nC', 'A\nB\nC'))).toBe('A\n{+B\n+}C');
  expect(shown(diffText('A', 'A\nB'))).toBe('A{+\nB+}');
  expect(shown(diffText('A\nB', 'A'))).toBe('A[-\nB-]');
});

test('a long region is cut at maxChars and says so; long unchanged lines keep only their ends near the change', () => {
  const big = Array.from({ length: 50 }, (_, i) => `New line ${i} of a long insertion.`).join('\n');
  const [region] = changeRegions('Start', `Start\n${big}`, { maxChars: 200 });
  expect(region!.truncated).toBe(true);
  expect(region!.pieces.map((p) => p.text).join('').length).toBeLessThanOrEqual(201);
  expect(region!.pieces.at(-1)!.text.endsWith('…')).toBe(true);
  const long = 'x'.repeat(500);
  const [cut] = changeRegions(`${long} old ${long}`, `${long} new ${long}`, { clip: 20 });
  expect(shown(cut!.pieces)).toBe(`…${'x'.repeat(19)} [-old-]{+new+} ${'x'.repeat(19)}…`);
});

test('words: a rewritten phrase is one change, not a comb of words', () => {
  expect(shown(diffWords('Plant tomatoes in May.', 'Plant tomatoes in June.'))).toBe('Plant tomatoes in [-May-]{+June+}.');
  expect(shown(diffWords('the quick brown fox', 'the slow red fox'))).toBe('the [-quick brown-]{+slow red+} fox');
  // Words that recur inside a rewrite ("the", "and", a comma) do not split it.
  expect(
    shown(diffWords('Paragraph 2: the garden plan for week 2, with notes on watering, weeding and what to plant next.', 'Paragraph 2: sow the peas.')),
  ).toBe('Paragraph 2: [-the garden plan for week 2, with notes on watering, weeding and what to plant next-]{+sow the peas+}.');
  // A longer unchanged word between two small changes keeps them apart.
  expect(shown(diffWords('one two three four five', 'one 2 three 4 five'))).toBe('one [-two-]{+2+} three [-four-]{+4+} five');
});

test('property: the pieces give back both texts exactly, and every change lies in a region', () => {
  const text = fc.array(fc.constantFrom('alpha', 'beta gamma', '', 'delta.', 'alpha beta'), { maxLength: 12 }).map((l) => l.join('\n'));
  fc.assert(
    fc.property(text, text, (before, after) => {
      const pieces = diffText(before, after);
      expect(oldText(pieces)).toBe(before);
      expect(newText(pieces)).toBe(after);
      const regions = changeRegions(before, after, { maxChars: 100_000 });
      expect(regions.length === 0).toBe(before === after);
      // What the regions mark as changed is what the whole text marks (line breaks aside: a region ends where it ends).
      const changed = (list: Piece[]) =>
        list
          .filter((p) => p.kind !== 'same')
          .map((p) => `${p.kind}:${p.text.replace(/\n/g, '')}`)
          .filter((t) => !t.endsWith(':'))
          .join('|');
      expect(
        regions
          .map((r) => changed(r.pieces))
          .filter(Boolean)
          .join('|'),
      ).toBe(changed(pieces));
    }),
    { seed: 24, numRuns: 500 },
  );
});

// How long they take is measured by `npm run bench` (scripts/bench-diff.mjs), not here.
test('100 KB texts, a few edits or rewritten from end to end: the places are found', () => {
  const paragraphs = Array.from({ length: 900 }, (_, i) => `Paragraph ${i}: ${'some words of a long note '.repeat(4)}`);
  const before = paragraphs.join('\n');
  expect(before.length).toBeGreaterThan(100_000);
  const edited = [...paragraphs];
  for (const i of [10, 400, 850]) edited[i] = `${edited[i]} (edited)`;
  const rewritten = paragraphs.map((p, i) => `Line ${i * 7}: ${p.split('').reverse().join('')}`).join('\n');
  for (const after of [edited.join('\n'), rewritten]) {
    expect(changeRegions(before, after).length).toBeGreaterThan(0);
    expect(diffText(before, after).some((piece) => piece.kind === 'added')).toBe(true);
  }
  expect(changeRegions(before, edited.join('\n')).map((r) => r.line)).toEqual([11, 401, 851]);
});

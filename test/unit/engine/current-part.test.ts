// The bounded Current tiddler section of a tiddler too large for the prompt (issue 26): within its
// token budget whatever the text (Latin, CJK, no headings, many headings), with the region around
// the focus and a note the write gate knows as a marker.
import { estimateTokens } from '../../../src/agent/engine/context';
import { currentFocus, outline, partialCurrentTiddler } from '../../../src/agent/engine/current-part';
import { markersIn } from '../../../src/agent/tools/product-markers';
import type { Message } from '../../../src/agent/store/schemas';

const HEADING = 'Current tiddler: the authoritative, up-to-date content of "Big".';
const latin = Array.from({ length: 500 }, (_, i) => `! Part ${i}\nWords of part ${i}. ${'Some text. '.repeat(30)}`).join('\n');
const cjk = '这是一个很长的中文段落，用来测试。'.repeat(20_000);
const manyHeadings = Array.from({ length: 20_000 }, (_, i) => `!! Heading ${i}`).join('\n');

test.each([
  ['Latin with headings', latin, 0],
  ['Latin, focus at the end', latin, latin.length],
  ['CJK, no headings', cjk, 150_000],
  ['only headings', manyHeadings, 100_000],
])('%s: fits its budget, shows the focus and says only a part is shown', (_what, text, focus) => {
  for (const budget of [500, 4_000, 20_000]) {
    const section = partialCurrentTiddler({ title: 'Big', text, modified: '1' }, HEADING, focus, budget);
    expect(estimateTokens(section)).toBeLessThanOrEqual(budget);
    expect(section.startsWith(HEADING)).toBe(true);
    expect(section).toContain('[Only part of "Big" is shown here');
    expect(markersIn(section).length).toBeGreaterThan(0);
    const part = section.match(/part="(\d+)-(\d+)"/)!;
    const [start, end] = [Number(part[1]), Number(part[2])];
    expect(start).toBeLessThanOrEqual(focus);
    if (budget >= 4_000) expect(end).toBeGreaterThan(Math.min(focus, text.length - 1) - 1);
  }
});

test('the outline lists headings with their offsets (wikitext and Markdown)', () => {
  expect(outline('Intro\n! One\ntext\n!! Two', undefined)).toEqual([
    { at: 6, line: '! One' },
    { at: 17, line: '!! Two' },
  ]);
  expect(outline('# One\ntext\n## Two', 'text/x-markdown')).toEqual([
    { at: 0, line: '# One' },
    { at: 11, line: '## Two' },
  ]);
});

test('the focus: the latest edit or read of the tiddler, else the start', () => {
  const text = 'alpha beta gamma delta';
  const tool = (name: string, args: unknown, seq: number) =>
    ({ role: 'tool', 'tool-name': name, 'tool-args': JSON.stringify(args), 'agent-seq': seq }) as unknown as Message;
  expect(currentFocus([], 'Big', text)).toBe(0);
  expect(currentFocus([tool('wiki-read', { title: 'Big', offset: 6 }, 1)], 'Big', text)).toBe(6);
  expect(
    currentFocus(
      [tool('wiki-read', { title: 'Big', offset: 6 }, 1), tool('wiki-edit', { title: 'Big', edits: [{ find: 'gamma', replace: 'x' }] }, 2)],
      'Big',
      text,
    ),
  ).toBe(11);
  // A snippet already replaced: where its replacement is.
  expect(currentFocus([tool('wiki-edit', { title: 'Big', edits: [{ find: 'omega', replace: 'delta' }] }, 2)], 'Big', text)).toBe(17);
  // Another tiddler's calls do not count.
  expect(currentFocus([tool('wiki-read', { title: 'Other', offset: 6 }, 1)], 'Big', text)).toBe(0);
});

test.each([
  ['a huge data field', { data: `start of the data ${'y'.repeat(300_000)}` }],
  ['thousands of tags', { tags: Array.from({ length: 5_000 }, (_, i) => `[[Tag number ${i}]]`).join(' ') }],
])('a tiddler with %s still fits its budget, the field cut with a note', (_what, extra) => {
  for (const budget of [2_000, 20_000]) {
    const section = partialCurrentTiddler({ title: 'Big', text: latin, modified: '1', ...extra }, HEADING, 0, budget);
    expect(estimateTokens(section)).toBeLessThanOrEqual(budget);
    expect(section).toMatch(/more characters not shown\]/);
    expect(section).toContain(Object.values(extra)[0]!.slice(0, 20));
  }
});

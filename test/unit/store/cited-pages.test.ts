// The pages a reply names after a PDF's link (store/sources.ts): the usual ways of writing
// them, bounded, and a reply's sources recorded before pages existed still parse.
import { citedPages, citedTitles, MAX_CITED_PAGES, pagesLabel, parseSources } from '../../../src/agent/store/sources';

test('the usual ways of naming a page right after a link', () => {
  const text = [
    '[[A.pdf]] (page 7)',
    '[[B.pdf]], p. 3',
    '[[C.pdf]] p. 7-8',
    '[[D.pdf]] [page 2]',
    '[[label|E.pdf]] pp. 4–6',
    '[[F.pdf]] (pages 9 to 10)',
    '[[G.pdf]]，第 5 页',
    '[[H.pdf]] says page 3', // not right after the link
    '[[I.pdf]] people 3',
  ].join('\n');
  expect(Object.fromEntries(citedPages(text))).toEqual({
    'A.pdf': [7],
    'B.pdf': [3],
    'C.pdf': [7, 8],
    'D.pdf': [2],
    'E.pdf': [4, 5, 6],
    'F.pdf': [9, 10],
    'G.pdf': [5],
  });
});

test('pages of a title cited twice are merged; a huge range or page 0 is bounded', () => {
  expect(citedPages('[[A.pdf]] (p. 9) and [[A.pdf]] (p. 2) and [[A.pdf]] (p. 9)').get('A.pdf')).toEqual([2, 9]);
  expect(citedPages('[[A.pdf]] pages 1-99999').get('A.pdf')).toHaveLength(MAX_CITED_PAGES);
  expect(citedPages('[[A.pdf]] page 0').has('A.pdf')).toBe(false);
  expect(citedPages(`[[A.pdf]] ${'p. 1 '.repeat(10_000)}`).get('A.pdf')).toEqual([1]);
});

test('pages are written as a reader would', () => {
  expect(pagesLabel([7])).toBe('7');
  expect(pagesLabel([2, 7, 8])).toBe('2, 7–8');
  expect(pagesLabel([1, 2, 3, 5])).toBe('1–3, 5');
});

test('old records without pages still parse; bad page lists are dropped', () => {
  const old = JSON.stringify([{ title: 'A', modified: '', fingerprint: 'f', cited: true }]);
  expect(parseSources(old)).toEqual([{ title: 'A', modified: '', fingerprint: 'f', cited: true }]);
  const paged = JSON.stringify([{ title: 'A.pdf', modified: '', fingerprint: 'f', cited: true, pages: [7, 'x', -1, 2.5], unverifiedPages: 'no' }]);
  expect(parseSources(paged)).toEqual([{ title: 'A.pdf', modified: '', fingerprint: 'f', cited: true, pages: [7] }]);
});

test('a link goes where TiddlyWiki sends it: everything after the first |, so the chip names the tiddler the link opens', () => {
  expect(citedTitles('See [[Budget|Notes|Evil]] and [[Plain]].')).toEqual(['Notes|Evil', 'Plain']);
  expect([...citedPages('[[the report|Report.pdf]] (page 3)')]).toEqual([['Report.pdf', [3]]]);
});

test('a page named before the link ("page 7 of [[…]]") belongs to that link, not to the link before it', () => {
  expect(Object.fromEntries(citedPages('As page 7 of [[Report.pdf]] says, and pp. 2-3 in [[Notes.pdf]].'))).toEqual({
    'Report.pdf': [7],
    'Notes.pdf': [2, 3],
  });
  // "[[A.pdf]] and page 4 of [[B.pdf]]": page 4 is B's; A's own page is the one right after it.
  expect(Object.fromEntries(citedPages('[[A.pdf]] page 4 of [[B.pdf]]'))).toEqual({ 'B.pdf': [4] });
  expect(Object.fromEntries(citedPages('[[A.pdf]] (p. 1), page 4 of [[B.pdf]]'))).toEqual({ 'A.pdf': [1], 'B.pdf': [4] });
  // A page not leading into the link is not a citation of it.
  expect(citedPages('page 7. Then [[Report.pdf]]').has('Report.pdf')).toBe(false);
});

test('a page leading into the next link is never split to fit the link before it; a page is a word of its own', () => {
  expect(Object.fromEntries(citedPages('[[A.pdf]] page 12 of [[B.pdf]]'))).toEqual({ 'B.pdf': [12] });
  expect(Object.fromEntries(citedPages('[[A.pdf]] pages 3-4 of [[B.pdf]]'))).toEqual({ 'B.pdf': [3, 4] });
  expect(Object.fromEntries(citedPages('[[A.pdf]] pages 3 to 14 in [[B.pdf]]'))).toEqual({ 'B.pdf': [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14] });
  expect(citedPages('[[A.pdf]] page 123456').has('A.pdf')).toBe(false);
  for (const text of ['Step 3 of [[Guide.pdf]]', 'the top 10 of [[List.pdf]]', 'map 2 in [[Atlas.pdf]]', '[[Atlas.pdf]] map 2'])
    expect(Object.fromEntries(citedPages(text))).toEqual({});
});

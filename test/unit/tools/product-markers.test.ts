// Text the product adds to what the agent is shown (issue 26): the patterns find every marker the
// tools write, and the variants a model makes of them, and let a tiddler keep the ones it had.
import { addedMarker, markersIn } from '../../../src/agent/tools/product-markers';

describe('markers the product writes into what the agent is shown', () => {
  test.each([
    ['wiki-read, a long text', '[… 12345 more characters not shown; read them with offset 40000]'],
    ['wiki-read, from an offset', '[… 40000 earlier characters not shown; read them with offset 0]'],
    ['wiki-search, full text', '[… 532 more characters; use wiki-read]'],
    ['wiki-search, the budget', '(text not shown: result budget reached; use wiki-read)'],
    ['wiki-read, binary', '(application/pdf content, 5120 characters, not shown)'],
    ['wiki-search / Current tiddler, binary', '(image/png content, not shown here)'],
    ['wiki-read, an image', '(image/png image, 12 KB: attached to this result as an image)'],
    ['wiki-read, an image elsewhere', '(image/jpeg image stored outside the wiki at its _canonical_uri; it is not fetched, so it is not shown)'],
    ['mcp tools, a cut result', '[… cut at 20000 characters]'],
    ['mcp tools, audio', '[audio (audio/wav, 300 bytes) not shown]'],
    ['wiki-toc', '[… outline cut at 300 lines; use a lower depth or a deeper root]'],
    ['web-fetch', '[Cut at 20000 of 51234 characters; call again with a larger maxChars (up to 200000) to read more.]'],
    ['trimmed history', '[12 earlier messages were left out to fit the context window]'],
    ['an image a model cannot take', '[The image "Photo" is not shown: the model "m" does not take images.]'],
    ['the Current tiddler, a part', '[Only part of "Big" is shown here: its text has 200000 characters, more than the prompt has room for.]'],
    ['the Current tiddler, an outline line', 'Intro\n@1234 ! Section two\nmore'],
    ['the wrapper of a tool result', '<tiddler-data title="A" modified="1">\nText\n</tiddler-data>'],
  ])('%s', (_where, marker) => {
    expect(markersIn(marker).length).toBeGreaterThan(0);
    expect(markersIn(`Some words before. ${marker} And after.`).length).toBeGreaterThan(0);
  });

  test.each([
    ['another number', '[… 7 more characters not shown]'],
    ['a number with separators', '[… 1,234,567 more characters not shown]'],
    ['"..." for "…"', '[... 99 more characters not shown]'],
    ['no brackets', 'The end of the plan. 4711 more characters not shown'],
    ['no ellipsis', '[ 12 more characters not shown ]'],
    ['inside a long line', `${'word '.repeat(2000)}… 3 more chars${' word'.repeat(2000)}`],
  ])('a variant a model may make: %s', (_what, text) => {
    expect(markersIn(text).length).toBeGreaterThan(0);
  });

  test.each([
    'Plant tomatoes in May… then beans.',
    'The password needs 12 more characters.',
    'For your safety the last 4 characters are not shown.',
    'See the image (image/png) below.',
    'An outline: ! Heading',
    'Email me @1234 tomorrow',
  ])('ordinary text is no marker: %s', (text) => {
    expect(markersIn(text)).toEqual([]);
  });
});

describe('a change adds a marker only where its tiddlers did not hold it', () => {
  const marker = '[… 500 more characters not shown]';
  test('a new marker is found, in the text or a field', () => {
    expect(addedMarker({ title: 'A', text: `x ${marker}` }, [{ title: 'A', text: 'x' }])).toMatchObject({ field: 'text', found: marker });
    expect(addedMarker({ title: 'A', text: 'x', summary: marker }, [{ title: 'A', text: 'x' }])).toMatchObject({ field: 'summary' });
    expect(addedMarker({ title: 'A', text: marker }, [])).toBeDefined();
  });
  test('a marker the tiddler already held may stay (a manual quoting one), but not a second copy of it', () => {
    const manual = { title: 'Manual', text: `wiki-read ends a long text with ${marker}.` };
    expect(addedMarker({ ...manual, text: `${manual.text}\nMore words.` }, [manual])).toBeUndefined();
    expect(addedMarker({ ...manual, text: `${manual.text}\n${marker}` }, [manual])).toBeDefined();
    // A rename: the new title is made from the old one.
    expect(addedMarker({ ...manual, title: 'Manual 2' }, [manual])).toBeUndefined();
  });
});

describe('the scan is linear in the text (it runs on every write)', () => {
  // Unbounded repeats made these quadratic: a 78 KB line of numbers took 6 s, a 1 MB one minutes.
  const size = 200_000;
  test.each([
    ['a JSON array of numbers', `[${Array.from({ length: size / 4 }, (_, i) => i % 1000).join(',')}]`],
    ['digits and spaces', '1 '.repeat(size / 2)],
    ['dots and digits', '...1 '.repeat(size / 5)],
    ['a digit and a long run of spaces', `[1${' '.repeat(size)}`],
    ['parentheses never closed', '(a/b image '.repeat(size / 11)],
    ['brackets never closed', '[only part of '.repeat(size / 14)],
  ])('%s, 200 KB, in well under a second', (_what, text) => {
    const start = performance.now();
    expect(markersIn(text)).toEqual([]);
    expect(performance.now() - start).toBeLessThan(1000);
  });
});

// The text index and its keeper, without TiddlyWiki: how words match, how hits rank, and that
// the keeper builds in slices and follows changes.
import { IndexKeeper } from '../../../src/agent/search/index-keeper';
import { type IndexedTiddler, TextIndex } from '../../../src/agent/search/text-index';

const filler = (n: number) => 'plain words about nothing much '.repeat(n);
const doc = (title: string, text: string, tags: string[] = []): IndexedTiddler => ({ title, tags, text });
const titles = (index: TextIndex, query: string, options = {}) => index.search(query, options).map((h) => h.title);

describe('TextIndex', () => {
  test('a tiddler holding the phrase six times ranks above one holding it once', () => {
    const index = new TextIndex();
    // The same other words, so only the number of occurrences differs; by title "A once" comes first.
    index.put(doc('A once', `${filler(6)} quantum garden ${filler(6)}`));
    index.put(doc('B six times', `${'quantum garden '.repeat(6)}${filler(12)}`));
    index.put(doc('C unrelated', filler(12)));
    expect(titles(index, 'quantum garden')).toEqual(['B six times', 'A once']);
  });

  test('a title match ranks above a text match, a tag match above a text match', () => {
    const index = new TextIndex();
    index.put(doc('Aardvark notes', `the marmalade recipe ${filler(2)}`));
    index.put(doc('Marmalade', filler(3)));
    index.put(doc('Breakfast', filler(3), ['Marmalade']));
    expect(titles(index, 'marmalade')).toEqual(['Marmalade', 'Breakfast', 'Aardvark notes']);
  });

  test('every word must match, as a whole word or (3+ letters) the start of one', () => {
    const index = new TextIndex();
    index.put(doc('Gardening', 'We were gardening all day.'));
    index.put(doc('Kindergarden', 'A kindergarden visit.'));
    index.put(doc('Garden shed', 'Tools in the shed.'));
    index.put(doc('Go', 'Go is a game; we go.'));
    expect(titles(index, 'garden').sort()).toEqual(['Garden shed', 'Gardening']);
    expect(titles(index, 'garden shed')).toEqual(['Garden shed']);
    expect(titles(index, 'GARDEN')).toContain('Garden shed');
    // Two letters match whole words only.
    expect(titles(index, 'ga')).toEqual([]);
    expect(titles(index, 'go')).toEqual(['Go']);
    expect(titles(index, 'nothere')).toEqual([]);
    // The words that matched come back, for snippets.
    expect(index.search('garden').find((h) => h.title === 'Gardening')!.words).toEqual(['gardening']);
  });

  test('system tiddlers only with includeSystem; titlesOnly; ranking within a set', () => {
    const index = new TextIndex();
    index.put(doc('$:/config/Lantern', 'lantern settings'));
    index.put(doc('Lantern', 'a lamp'));
    index.put(doc('Lamp post', 'holds a lantern'));
    expect(titles(index, 'lantern')).toEqual(['Lantern', 'Lamp post']);
    expect(titles(index, 'lantern', { includeSystem: true }).sort()).toEqual(['$:/config/Lantern', 'Lamp post', 'Lantern']);
    expect(titles(index, 'lantern', { titlesOnly: true })).toEqual(['Lantern']);
    expect(titles(index, 'lantern', { within: new Set(['Lamp post', '$:/config/Lantern']), includeSystem: true }).sort()).toEqual([
      '$:/config/Lantern',
      'Lamp post',
    ]);
  });

  test('put replaces, remove removes', () => {
    const index = new TextIndex();
    index.put(doc('Note', 'apples'));
    index.put(doc('Note', 'pears'));
    expect(titles(index, 'apples')).toEqual([]);
    expect(titles(index, 'pears')).toEqual(['Note']);
    index.remove('Note');
    index.remove('Never there');
    expect(titles(index, 'pears')).toEqual([]);
    expect(index.size).toBe(0);
  });
});

describe('IndexKeeper', () => {
  /** A wiki as a map of title → text; a title whose text starts with "hidden" must not be indexed. */
  function keeperOver(wiki: Map<string, { text: string }>) {
    return new IndexKeeper<{ text: string }>({
      titles: () => [...wiki.keys()],
      current: (title) => {
        const t = wiki.get(title);
        return t && !t.text.startsWith('hidden') ? t : undefined;
      },
      document: (title, t) => doc(title, t.text),
    });
  }

  test('builds in slices until the deadline says stop, and answers only when complete', () => {
    const wiki = new Map(Array.from({ length: 1000 }, (_, i) => [`Note ${i}`, { text: i % 100 === 0 ? 'rare zebra' : 'common words' }]));
    const keeper = keeperOver(wiki);
    expect(keeper.started).toBe(false);
    let steps = 0;
    expect(keeper.step(() => ++steps >= 3)).toBe(false);
    expect(keeper.current()).toBeUndefined();
    expect(keeper.progress()).toEqual({ indexed: 3 * 64, total: 1000 });
    // A change during the build is not lost.
    wiki.set('Late', { text: 'zebra late' });
    keeper.changed('Late');
    expect(keeper.step()).toBe(true);
    expect(keeper.current()!.search('zebra').length).toBe(11);
  });

  test('changes apply when the index is next asked; hidden ones leave it; unchanged ones are not re-read', () => {
    const wiki = new Map([
      ['A', { text: 'alpha' }],
      ['B', { text: 'hidden beta' }],
    ]);
    const keeper = keeperOver(wiki);
    keeper.step();
    expect(titles(keeper.current()!, 'beta')).toEqual([]);
    wiki.set('A', { text: 'hidden alpha' });
    wiki.set('C', { text: 'alpha gamma' });
    wiki.delete('B');
    for (const t of ['A', 'B', 'C']) keeper.changed(t);
    expect(titles(keeper.current()!, 'alpha')).toEqual(['C']);
    const index = keeper.current()!;
    const put = jest.spyOn(index, 'put');
    keeper.changedAll();
    keeper.current();
    expect(put).not.toHaveBeenCalled();
  });
});

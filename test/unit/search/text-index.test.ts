// The text index and its keeper, without TiddlyWiki: how words match, how hits rank, and that
// the keeper builds in slices and follows changes.
import { IndexKeeper } from '../../../src/agent/search/index-keeper';
import { decodeTextIndex, encodeTextIndex } from '../../../src/agent/search/saved-text-index';
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

describe('a saved TextIndex', () => {
  const sample = () => {
    const index = new TextIndex();
    index.put(doc('Marmalade', filler(3)));
    index.put(doc('Breakfast', `toast and ${filler(2)}`, ['Marmalade']));
    index.put(doc('Aardvark notes', `the marmalade recipe, «Ünïcode» 果酱 ${filler(2)}`));
    index.put(doc('Gone', 'marmalade that was removed'));
    index.remove('Gone');
    return index;
  };

  test('answers as the index it was saved from, and takes new tiddlers after loading', () => {
    const before = sample();
    // Thousands of words saved: words added after loading are numbered past them.
    before.put(doc('Wordy', Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ')));
    const expected = before.search('marmalade');
    const bytes = encodeTextIndex(before);
    // A Node Buffer may start at any offset of its pool: the copy starts at an odd one.
    const odd = new Uint8Array(bytes.length + 1);
    odd.set(bytes, 1);
    const loaded = decodeTextIndex(odd.subarray(1));
    expect(loaded.search('marmalade')).toEqual(expected);
    expect(titles(loaded, 'marmalade').sort()).toEqual(['Aardvark notes', 'Breakfast', 'Marmalade']);
    expect(titles(loaded, 'ünïcode')).toEqual(['Aardvark notes']);
    expect(titles(loaded, 'gone')).toEqual([]);
    expect(loaded.size).toBe(4);
    expect(loaded.fingerprintOf('Breakfast')).toBe(before.fingerprintOf('Breakfast'));
    loaded.put(doc('Marmite', 'not marmalade'));
    loaded.put(doc('Breakfast', 'porridge'));
    // A shorter word the query starts weighs more: "marmite" before "marmalade".
    expect(titles(loaded, 'marm')).toEqual(['Marmite', 'Marmalade', 'Aardvark notes']);
    expect(titles(loaded, 'porridge')).toEqual(['Breakfast']);
    expect(decodeTextIndex(encodeTextIndex(loaded)).search('marm')).toEqual(loaded.search('marm'));
  });

  test('anything but a whole saved index is refused with a reason', () => {
    const bytes = encodeTextIndex(sample());
    expect(() => decodeTextIndex(new TextEncoder().encode('{"format":1}'))).toThrow('not a saved search index of this version');
    expect(() => decodeTextIndex(bytes.subarray(0, bytes.length - 8))).toThrow('cut short');
    const otherFormat = bytes.slice();
    otherFormat[3] = 99;
    expect(() => decodeTextIndex(otherFormat)).toThrow('not a saved search index of this version');
  });

  test('many replacements leave the answers as a fresh index gives them', () => {
    const index = new TextIndex();
    const fresh = new TextIndex();
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 600; i++) index.put(doc(`Note ${i}`, `${round === 4 && i % 50 === 0 ? 'zebra ' : ''}round ${round} words`));
    }
    for (let i = 0; i < 600; i++) fresh.put(doc(`Note ${i}`, `${i % 50 === 0 ? 'zebra ' : ''}round 4 words`));
    expect(index.search('zebra')).toEqual(fresh.search('zebra'));
    expect(titles(index, 'round')).toHaveLength(600);
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

  test('a restored index is checked, not rebuilt: only what changed is indexed again', () => {
    const wiki = new Map([
      ['Same', { text: 'unchanged quince' }],
      ['Edited', { text: 'old quince' }],
      ['Deleted', { text: 'quince gone' }],
    ]);
    const first = keeperOver(wiki);
    first.step();
    const saved = first.save()!;
    wiki.set('Edited', { text: 'new plum' });
    wiki.delete('Deleted');
    wiki.set('Added', { text: 'quince added' });
    const keeper = keeperOver(wiki);
    keeper.restore(decodeTextIndex(saved));
    expect(keeper.checking).toBe(true);
    const put = jest.spyOn(keeper.index, 'put');
    expect(keeper.step()).toBe(true);
    expect(put.mock.calls.map(([entry]) => entry.title).sort()).toEqual(['Added', 'Edited']);
    expect(keeper.restored).toEqual({ reindexed: 1, added: 1, removed: 1 });
    expect(titles(keeper.current()!, 'quince').sort()).toEqual(['Added', 'Same']);
    expect(titles(keeper.current()!, 'plum')).toEqual(['Edited']);
  });
});

// The kept tag index (runner/startup/tag-index.ts) as a property: after any sequence of writes (tagged
// and untagged tiddlers, tiddlers named like tags with `list` fields, list-before/after,
// overrides of tagged shadows, deletions), every tag lookup through each of TiddlyWiki's four
// iterators, and through the agent's view, gives exactly what a freshly built index gives.
import fc from 'fast-check';
import { agentLib, bootWiki, type TW } from '../helpers/tw';

jest.setTimeout(120_000);

const TITLES = ['A', 'B', 'C', 'Tag1', 'Tag2', '$:/tags/Global', '$:/core/ui/SideBar/Open', 'Note'];
const TAGS = ['Tag1', 'Tag2', 'A', '$:/tags/SideBar'];
const ITERATORS = ['each', 'eachShadow', 'eachTiddlerPlusShadows', 'eachShadowPlusTiddlers'] as const;

type Op = { kind: 'put'; title: string; tags: string[]; list: string[]; before?: string } | { kind: 'delete'; title: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('put' as const),
    title: fc.constantFrom(...TITLES),
    tags: fc.subarray(TAGS),
    list: fc.subarray(TITLES),
    before: fc.option(fc.constantFrom(...TITLES), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('delete' as const), title: fc.constantFrom(...TITLES) }),
);

let $tw: TW;
let lib: ReturnType<typeof agentLib>;
beforeAll(async () => {
  $tw = await bootWiki();
  lib = agentLib($tw);
});

/** Every tag's titles per iterator, from the live (kept) index and from a fresh build. */
function lookups(): { kept: unknown; fresh: unknown } {
  const wiki = $tw.wiki;
  const read = () => Object.fromEntries(ITERATORS.flatMap((it) => TAGS.map((tag) => [`${it} ${tag}`, wiki[it].byTag(tag)])));
  const view = lib.createTiddlyWikiPort(wiki).agentView();
  const viewRead = () => TAGS.map((tag) => view.filter(`[all[shadows+tiddlers]tag[${tag}]]`));
  const kept = { core: read(), view: viewRead() };
  for (const sub of wiki.getIndexer('TagIndexer').subIndexers) sub.index = null;
  // The view's own index is rebuilt when the generation moves: move it as a full rebuild would.
  wiki.getIndexer('TagIndexer').tiddlyagentGeneration += 1;
  return { kept, fresh: { core: read(), view: viewRead() } };
}

test('a kept tag index answers every lookup as a freshly built one', () => {
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 12 }), (ops) => {
      for (const o of ops) {
        if (o.kind === 'delete') $tw.wiki.deleteTiddler(o.title);
        else $tw.wiki.addTiddler(new $tw.Tiddler({ title: o.title, text: 'x', tags: o.tags, list: o.list, ...(o.before ? { 'list-before': o.before } : {}) }));
        // Build the indexes (and sort each tag's titles), so the next write finds them built.
        for (const it of ITERATORS) for (const tag of TAGS) $tw.wiki[it].byTag(tag);
        for (const tag of TAGS) lib.createTiddlyWikiPort($tw.wiki).agentView().filter(`[all[shadows+tiddlers]tag[${tag}]]`);
      }
      const { kept, fresh } = lookups();
      expect(kept).toEqual(fresh);
    }),
    { seed: 20261124, numRuns: 100 },
  );
});

test('an untagged write keeps the index; a tagged one, or one naming a tag, does not', () => {
  const indexer = $tw.wiki.getIndexer('TagIndexer');
  $tw.wiki.filterTiddlers('[tag[Tag1]]');
  const before = indexer.tiddlyagentGeneration;
  $tw.wiki.addTiddler({ title: 'Plain message', text: 'no tags' });
  expect(indexer.tiddlyagentGeneration).toBe(before);
  $tw.wiki.addTiddler({ title: 'Tag1', text: 'the tag tiddler', list: 'A B' });
  expect(indexer.tiddlyagentGeneration).toBe(before + 1);
  $tw.wiki.addTiddler({ title: 'Tagged', tags: 'Tag2' });
  expect(indexer.tiddlyagentGeneration).toBe(before + 2);
});

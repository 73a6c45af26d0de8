// Hidden means absent, as a property: random filters (and searches and renders) through the
// agent's view of a wiki that holds hidden tiddlers give exactly what they give on the same
// wiki without them. Two real TiddlyWikis are booted: A with the hidden tiddlers, B without.
// Filters run in both orders against A's real wiki and its view, so neither cache can leak
// into the other.
import fc from 'fast-check';
import { agentLib, bootWiki, type TW } from '../helpers/tw';

jest.setTimeout(60_000);

const VISIBLE = [
  { title: 'Garden', text: 'Plant tomatoes. The password for the shed is in [[Shed]].', tags: 'Notes Home', modified: '20260101000000000' },
  { title: 'Shed', text: 'Tools live here. See [[Secret chat]] and {{Garden}}.', tags: 'Home', list: 'Garden [[Secret chat]]', modified: '20260102000000000' },
  { title: 'Notes', text: 'The notes tag.', modified: '20260103000000000' },
  { title: 'Recipes', text: 'Bread: flour, water, salt. secret ingredient: time', tags: 'Notes', type: 'text/vnd.tiddlywiki', role: 'cook', modified: '20260104000000000' },
  { title: 'Journal', text: 'Dear diary, chat with friends.', tags: 'Notes [[Secret tag]]', modified: '20260105000000000' },
  { title: '$:/config/Visible', text: 'system but visible', modified: '20260106000000000' },
  { title: 'Data', type: 'application/x-tiddler-dictionary', text: 'x: 1\ny: secret', modified: '20260107000000000' },
];
const HIDDEN = [
  { title: 'Secret chat', agent: 'Some agent', 'agent-status': 'idle', tags: 'Notes Home', text: 'password chat', list: 'Garden' },
  { title: '$:/ai/messages/Secret chat/000001', 'agent-chat': 'Secret chat', 'agent-seq': '1', role: 'user', text: 'my password is hunter2, see [[Garden]]', tags: 'Notes' },
  { title: '$:/ai/messages/Secret chat/000002', 'agent-chat': 'Secret chat', 'agent-seq': '2', role: 'assistant', text: 'secret reply {{Shed}}' },
  { title: '$:/ai/journal/Secret chat/000001', type: 'application/json', text: '{"Garden": {"before": null, "after": null}}' },
  { title: '$:/temp/HttpRequest/1', text: '{"headers": {"Authorization": "Bearer sk-secret"}}' },
  { title: 'Request log', tags: '$:/tags/HttpRequest Home', text: 'password header' },
  { title: 'Other chat', agent: 'Some agent', 'agent-status': 'completed', tags: 'Secret tag' },
];

let A: TW;
let B: TW;
let libA: ReturnType<typeof agentLib>;
let libB: ReturnType<typeof agentLib>;

beforeAll(async () => {
  A = await bootWiki([...VISIBLE, ...HIDDEN]);
  libA = agentLib(A);
  B = await bootWiki(VISIBLE);
  libB = agentLib(B);
  // B is A without anything hidden: the demo wiki's own chats and $:/isEncrypted go too.
  const hiddenInB: string[] = [];
  B.wiki.each((tiddler: { fields: Record<string, unknown> }, title: string) => {
    if (libB.isHiddenFromAgent(title, tiddler.fields)) hiddenInB.push(title);
  });
  for (const title of hiddenInB) B.wiki.deleteTiddler(title);
  // The one thing that differs between two boots: the start-up time in the info plugin
  // (written to both, so both have changed it once).
  // Chats and messages are written while the wiki runs (they have a change count).
  for (const fields of HIDDEN) A.wiki.addTiddler(new A.Tiddler(fields));
  const info = A.wiki.getTiddler('$:/temp/info-plugin').fields;
  A.wiki.addTiddler(new A.Tiddler(info));
  B.wiki.addTiddler(new B.Tiddler(info));
});

const portA = () => libA.createTiddlyWikiPort(A.wiki);
const portB = () => libB.createTiddlyWikiPort(B.wiki);

const TITLES = [...VISIBLE, ...HIDDEN].map((t) => t.title).concat(['Missing', '$:/ai/messages/Secret chat/000003', 'Secret tag', 'Home']);
const title = fc.oneof(
  fc.constantFrom(...TITLES).map((t) => `[${t}]`),
  fc.constantFrom(['$:/a', 'i/messages/Secret chat/000001'], ['Secret', ' chat'], ['$:/temp/Http', 'Request/1'], ['Other', ' chat']).map(([a, b]) => `[${a}]addsuffix[${b}]`),
);
const word = fc.constantFrom('password', 'secret', 'hunter2', 'chat', 'Garden', 'Bearer', 'nothing');
const start = fc.oneof(
  title.map((t) => `[${t}`),
  fc.constantFrom('[all[tiddlers]', '[all[shadows]', '[all[tiddlers+shadows]', '[all[orphans]', '[all[missing]', '[!is[system]', '[is[system]'),
  fc.constantFrom('Notes', 'Home', 'Secret tag', '$:/tags/HttpRequest').map((t) => `[tag[${t}]`),
  fc.constantFrom('agent', 'agent-chat', 'role', 'list', 'tags').map((f) => `[has[${f}]`),
  word.map((w) => `[search[${w}]`),
  fc.constantFrom('role', 'agent-status', 'agent-chat').map((f) => `[field:${f}[user]`),
);
const step = fc.oneof(
  fc.constantFrom('get[text]', 'get[agent-chat]', 'get[role]', 'tags[]', 'tagging[]', 'backlinks[]', 'links[]', 'list[]', 'listed[]', 'count[]'),
  fc.constantFrom('is[missing]', 'is[system]', 'is[tiddler]', '!is[tiddler]', 'is[shadow]', 'haschanged[]', 'sort[]', '!sort[modified]', 'limit[3]', 'first[]', 'last[]', 'each[type]'),
  fc.constantFrom('prefix[$:/ai]', 'prefix[Sec]', 'has[agent]', '!has[agent-chat]', 'field:role[user]', 'tag[Notes]', 'then[Garden]', 'else[Nothing]', 'addprefix[x]', 'splitbefore[/]', 'getindex[y]', 'transcludes[]', 'backtranscludes[]'),
  word.map((w) => `search[${w}]`),
  word.map((w) => `search:title[${w}]`),
);
const run = fc.tuple(start, fc.array(step, { maxLength: 3 })).map(([s, steps]) => `${s}${steps.join('')}]`);
const prefixed = fc.tuple(fc.constantFrom('', '+', '-', '~', ':filter', ':map', ':intersection', ':all'), run).map(([p, r]) => p + r);
const filter = fc.array(prefixed, { minLength: 1, maxLength: 3 }).map((runs) => runs.join(' '));

test('random filters: the agent view of a wiki with hidden tiddlers = the wiki without them, whichever cache was filled first', () => {
  let n = 0;
  fc.assert(
    fc.property(filter, (f) => {
      const expected = B.wiki.filterTiddlers(f);
      if (n++ % 2) A.wiki.filterTiddlers(f); // the real wiki compiles and caches it first …
      const seen = portA().agentView().filter(f);
      if (n % 2) A.wiki.filterTiddlers(f); // … or afterwards
      expect(seen).toEqual(expected);
      expect(portB().agentView().filter(f)).toEqual(expected);
    }),
    {
      numRuns: 1000,
      seed: 20261124,
      // The oracles of issue 9 are always among the cases.
      examples: [
        ['[[$:/ai/messages/Secret chat/000001]get[text]search[password]then[Garden]]'],
        ['[[$:/a]addsuffix[i/messages/Secret chat/000001]get[text]]'],
        ['[[Secret chat]haschanged[]then[yes]]'],
        ['[search[hunter2]] [has[agent-chat]count[]]'],
        ['[tag[Notes]] [[Garden]backlinks[]] [[Garden]listed[]]'],
      ],
    },
  );
});

test('random searches through the view find what the wiki without hidden tiddlers finds', () => {
  fc.assert(
    fc.property(word, fc.boolean(), (w, titlesOnly) => {
      expect(portA().agentView().search(w, { titlesOnly })).toEqual(portB().search(w, { titlesOnly }));
    }),
    { numRuns: 60, seed: 20261124 },
  );
});

test('rendering a tiddler that transcludes or lists random titles and filters shows nothing hidden', () => {
  let i = 0;
  fc.assert(
    fc.property(fc.constantFrom(...TITLES), filter, (t, f) => {
      const run = f.replace(/"/g, '');
      const probe = { title: `Probe ${i++}`, text: `{{${t}}} {{${t}!!agent-chat}} <$list filter="${run} +[limit[12]]"><$view field="title"/>: <$view field="text"/>;</$list> <$count filter="${run}"/>` };
      A.wiki.addTiddler(probe);
      B.wiki.addTiddler(probe);
      expect(portA().agentView().renderPlainText(probe.title)).toBe(portB().renderPlainText(probe.title));
    }),
    { numRuns: 80, seed: 20261124 },
  );
});

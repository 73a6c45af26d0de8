// Hidden means absent, as a property (issue 9 item 2): random filters, searches, lookups and
// renders through the agent's view of a wiki that holds hidden tiddlers give exactly what they
// give on the same wiki without them. Two real TiddlyWikis are booted: A with the hidden
// tiddlers, B without. Every filter runs in both orders against A's real wiki and its view
// (the real wiki compiles and caches it first, or the view does), so neither cache can leak
// into the other; the view of a sandbox over A must agree too.
// Counterexamples the properties found are pinned at the end as plain regression tests; they
// (and the properties, whose data holds the same cases) fail until the view is fixed.
import fc from 'fast-check';
import { agentLib, bootWiki, type TW } from '../helpers/tw';

jest.setTimeout(120_000);

const SEED = 20261124;
type Fields = Record<string, string> & { title: string };

// ---------------------------------------------------------------------------------------------
// The wikis

/** Visible: the same in A and B. Words that also occur in hidden tiddlers, links and lists to hidden and visible titles, shared tags. */
const VISIBLE: Fields[] = [
  {
    title: 'Garden',
    text: 'Plant tomatoes. The password for the shed is in [[Shed]]. Ask [[Secret chat]].',
    tags: 'Notes Home',
    modified: '20260101000000000',
  },
  {
    title: 'Shed',
    text: 'Tools live here. See [[Secret chat]], [[$:/ai/journal/Secret chat/000001]] and {{Garden}}.',
    tags: 'Home [[Secret chat]]',
    list: 'Garden [[Secret chat]] [[$:/temp/HttpRequest/1]]',
    modified: '20260102000000000',
  },
  { title: 'Greenhouse', text: 'Warm. secret seedlings. [[Garden]]', tags: '[[Secret chat]] Notes', modified: '20260102100000000' },
  { title: 'Notes', text: 'The notes tag.', list: 'Recipes Garden', modified: '20260103000000000' },
  { title: 'Home', text: 'Home page: {{Garden}} <<list-links filter:"[tag[Home]]">>', modified: '20260103100000000' },
  {
    title: 'Recipes',
    text: 'Bread: flour, water, salt. secret ingredient: time',
    tags: 'Notes',
    type: 'text/vnd.tiddlywiki',
    role: 'cook',
    modified: '20260104000000000',
  },
  { title: 'Journal', text: 'Dear diary, chat with friends about the Garden.', tags: 'Notes [[Secret tag]]', modified: '20260105000000000' },
  { title: 'Compost', text: 'Green and brown.', tags: 'Notes Home', 'list-before': 'Request log', modified: '20260105100000000' },
  { title: 'Worms', text: 'They like compost.', tags: 'Notes', 'list-after': 'Garden', modified: '20260105200000000' },
  { title: 'Passwords', text: 'Never write a password or secret key into a tiddler. Bearer tokens neither.', tags: 'Security', modified: '20260105300000000' },
  {
    title: 'Secret garden',
    text: 'A book. [[Secret garden]] links to itself and to [[Other chat]].',
    tags: '[[Secret tag]] Home',
    modified: '20260105400000000',
  },
  { title: 'Chat etiquette', text: 'agent-chat role user assistant: words only.', tags: 'Security', modified: '20260105500000000' },
  { title: 'Filters', text: '[tag[Notes]] [[Secret chat]]', modified: '20260105600000000' },
  { title: 'Cascade one', tags: 'Cascade', text: '[prefix[G]then[starts with G]]', modified: '20260105700000000' },
  { title: 'Data', type: 'application/x-tiddler-dictionary', text: 'x: 1\ny: secret\nheaders: none', modified: '20260107000000000' },
  { title: 'Json data', type: 'application/json', text: '{"headers": {"Authorization": "none"}, "x": "1"}', modified: '20260107100000000' },
  { title: '$:/config/Visible', text: 'system but visible, password policy', modified: '20260106000000000' },
  { title: '$:/config/greet', tags: '$:/tags/Global', text: '\\procedure greet() hello from the visible wiki', modified: '20260106100000000' },
  { title: '$:/temp/scratch', text: 'a visible scratch tiddler, see [[$:/temp/HttpRequest/1]]', modified: '20260106200000000' },
  { title: '$:/state/popup/visible', text: 'no', modified: '20260106300000000' },
  { title: 'Security', text: 'What we keep secret.', list: 'Passwords [[Request log]]', modified: '20260106400000000' },
];
const WORDS = ['password', 'secret', 'Garden', 'chat', 'compost', 'tomatoes', 'Bearer'];
for (let i = 1; i <= 20; i++) {
  const pick = <T>(xs: T[], k: number) => xs[(i * k) % xs.length]!;
  VISIBLE.push({
    title: `Note ${String(i).padStart(2, '0')}`,
    text: `${pick(WORDS, 3)} and ${pick(WORDS, 5)}; see [[${pick(['Garden', 'Secret chat', 'Shed', 'Missing note', '$:/ai/messages/Secret chat/000001', 'Note 01'], 7)}]].`,
    tags: pick(['Notes', 'Home', '[[Secret tag]]', '[[Secret chat]]', 'Notes Home', ''], 1),
    ...(i % 4 === 0 ? { list: `Garden [[${pick(['Other chat', 'Request log', 'Shed'], 1)}]]` } : {}),
    ...(i % 5 === 0 ? { role: 'user' } : {}),
    modified: `202601${String(10 + i)}000000000`,
  });
}

/** Hidden: chats, messages, a journal, HTTP request tiddlers, engine state, stored password state. */
const HIDDEN: Fields[] = [
  // A chat whose title is also a tag of visible tiddlers, with a list that orders them.
  { title: 'Secret chat', agent: 'Some agent', 'agent-status': 'idle', tags: 'Notes Home', text: 'password chat [[Garden]]', list: 'Greenhouse Shed Garden' },
  { title: 'Other chat', agent: 'Some agent', 'agent-status': 'completed', tags: '[[Secret tag]] Cascade', text: '[[Secret chat]]' },
  {
    title: '$:/ai/messages/Secret chat/000001',
    'agent-chat': 'Secret chat',
    'agent-seq': '1',
    role: 'user',
    text: 'my password is hunter2, see [[Garden]]',
    tags: 'Notes',
  },
  {
    title: '$:/ai/messages/Secret chat/000002',
    'agent-chat': 'Secret chat',
    'agent-seq': '2',
    role: 'assistant',
    text: 'secret reply {{Shed}} [[Compost]]',
    tags: 'Home',
  },
  {
    title: '$:/ai/messages/Secret chat/000003',
    'agent-chat': 'Secret chat',
    'agent-seq': '3',
    role: 'user',
    text: 'Garden secret: hunter2',
    list: 'Garden Shed',
  },
  { title: '$:/ai/journal/Secret chat/000001', type: 'application/json', text: '{"Garden": {"before": null, "after": {"title": "Garden"}}}' },
  { title: '$:/temp/HttpRequest/1', type: 'application/json', text: '{"headers": {"Authorization": "Bearer sk-secret"}, "x": "hunter2"}' },
  { title: 'Request log', tags: '$:/tags/HttpRequest Home Notes', text: 'password header Bearer sk-secret', 'list-before': '' },
  { title: '$:/temp/tiddlyagent/turn', text: 'running secret', tags: 'Security' },
  { title: '$:/state/password/openai', text: 'hunter2' },
  { title: '$:/ai/macros', tags: '$:/tags/Global', text: '\\procedure greet() hunter2 from a hidden tiddler\n\\procedure secret-proc() hunter2' },
  { title: 'Hidden cascade', agent: 'x', tags: 'Cascade', text: '[[hunter2]]', 'list-before': 'Cascade one' },
  // A hidden tiddler that overrides a (visible) shadow tiddler.
  { title: '$:/language/SideBar/Open/Caption', agent: 'x', text: 'hunter2 shadow override' },
  { title: 'Hidden filter', 'agent-chat': 'Other chat', text: '[[$:/temp/HttpRequest/1]get[text]]', tags: 'Notes [[Secret tag]]' },
  // An editor's draft of a hidden tiddler (it has no hidden prefix, only its draft.of names one).
  { title: "Draft of '$:/ai/journal/x'", 'draft.of': '$:/ai/journal/x', 'draft.title': '$:/ai/journal/x', text: 'draft of hunter2', tags: 'Notes' },
  // A memory the user made by tagging an ordinary tiddler: given in prompts in its scope, never read.
  { title: 'Remembered', tags: '$:/tags/AI/Memory Notes', 'memory-agent': 'Other agent', text: 'The user hunter2 likes tea' },
];

/** Titles a filter may name literally: visible, hidden, shadow and missing ones. */
const TITLES = [
  ...VISIBLE.slice(0, 21).map((t) => t.title),
  'Note 01',
  'Note 04',
  ...HIDDEN.map((t) => t.title),
  'Missing',
  'Missing note',
  '$:/ai/messages/Secret chat/000009',
  'Secret tag',
  'Cascade',
  '$:/tags/HttpRequest',
  '$:/tags/Global',
  'Demo chat',
  '$:/isEncrypted',
  '$:/language/SideBar/Recent/Caption',
];
/** Hidden titles built from pieces, so no literal hidden title appears in the filter. */
const PIECES: [string, string][] = [
  ['$:/a', 'i/messages/Secret chat/000001'],
  ['$:/ai/mess', 'ages/Secret chat/000003'],
  ['$:/temp/Http', 'Request/1'],
  ['$:/temp/tiddly', 'agent/turn'],
  ['$:/state/pass', 'word/openai'],
  ['$:/is', 'Encrypted'],
  ['Secret', ' chat'],
  ['Request', ' log'],
  ['Other', ' chat'],
  ['$:/language/SideBar/Open', '/Caption'],
  ['Gar', 'den'],
];

let A: TW;
let B: TW;
let libA: ReturnType<typeof agentLib>;
let libB: ReturnType<typeof agentLib>;

beforeAll(async () => {
  A = await bootWiki([...VISIBLE, ...HIDDEN.slice(0, 6)]);
  libA = agentLib(A);
  B = await bootWiki(VISIBLE);
  libB = agentLib(B);
  // B is A without anything hidden: the demo wiki's own chats and $:/isEncrypted go too, and
  // as if they had never been there (no change count left behind).
  const hiddenInB: string[] = [];
  B.wiki.each((tiddler: { fields: Record<string, unknown> }, title: string) => {
    if (libB.isHiddenFromAgent(title, tiddler.fields)) hiddenInB.push(title);
  });
  for (const title of hiddenInB) {
    B.wiki.deleteTiddler(title);
    delete B.wiki.changeCount[title];
  }
  // The rest of the hidden tiddlers are written while A runs (they have a change count).
  for (const fields of HIDDEN.slice(6)) A.wiki.addTiddler(new A.Tiddler(fields));
  A.wiki.addTiddler(new A.Tiddler({ ...HIDDEN[2], text: 'my password is hunter2 (edited)' }));
  // Visible tiddlers changed while both run; and the one thing that differs between two boots,
  // the start-up time in the info plugin, made the same.
  for (const wiki of [A.wiki, B.wiki]) {
    wiki.addTiddler({ ...VISIBLE[1], text: `${VISIBLE[1]!.text} (edited)` });
    wiki.addTiddler({ title: 'Note 03', text: 'rewritten: secret Garden [[Request log]]', tags: 'Notes [[Secret chat]]', modified: '20260201000000000' });
  }
  const info = A.wiki.getTiddler('$:/temp/info-plugin').fields;
  A.wiki.addTiddler(new A.Tiddler(info));
  B.wiki.addTiddler(new B.Tiddler(info));
  await new Promise((resolve) => setTimeout(resolve, 10)); // let the change events run
  // Both text indexes built (`aisearch` is empty while a first build runs, which on a busy
  // machine outlasts its first slice): the property compares answers, not build progress.
  await Promise.all([libA.textIndexOf(A.wiki).whenReady(), libB.textIndexOf(B.wiki).whenReady()]);
});

const portA = () => libA.createTiddlyWikiPort(A.wiki);
const portB = () => libB.createTiddlyWikiPort(B.wiki);

test('the two wikis: B holds no hidden tiddler, A holds every kind', () => {
  const hidden = (tw: TW, lib: ReturnType<typeof agentLib>) =>
    (tw.wiki.filterTiddlers('[all[tiddlers+shadows]]') as string[]).filter((t) => lib.isHiddenFromAgent(t, tw.wiki.getTiddler(t)?.fields));
  expect(hidden(B, libB)).toEqual([]);
  expect(hidden(A, libA).sort()).toEqual([...HIDDEN.map((t) => t.title), 'Demo chat', '$:/isEncrypted'].sort());
  expect(A.wiki.getChangeCount('$:/temp/HttpRequest/1')).toBeGreaterThan(0);
  expect(B.wiki.getChangeCount('Demo chat')).toBe(0);
});

// ---------------------------------------------------------------------------------------------
// The grammar: random filters from real TiddlyWiki filter operators

const title = fc.constantFrom(...TITLES);
const built = fc.oneof(
  fc.constantFrom(...PIECES).map(([a, b]) => `[${a}]addsuffix[${b}]`),
  fc.constantFrom(...PIECES).map(([a, b]) => `[${b}]addprefix[${a}]`),
  fc.constantFrom(...PIECES).map(([a, b]) => `[${b}]lookup:none[${a}],[title]`),
);
const word = fc.constantFrom(...WORDS, 'hunter2', 'sk-secret', 'Authorization', 'user', 'nothing', 'pass', 'ai/messages');
const tag = fc.constantFrom('Notes', 'Home', 'Secret tag', 'Secret chat', 'Security', 'Cascade', '$:/tags/HttpRequest', '$:/tags/Global');
const field = fc.constantFrom('agent', 'agent-chat', 'agent-status', 'role', 'list', 'tags', 'list-before', 'text', 'type');
/** The first step of a run: where its titles come from. */
const start = fc.oneof(
  title.map((t) => `[${t}]`),
  built,
  fc.constantFrom(
    'all[tiddlers]',
    'all[shadows]',
    'all[tiddlers+shadows]',
    'all[shadows+tiddlers]',
    'all[orphans]',
    'all[missing]',
    'all[tags]',
    '!is[system]',
    'is[system]',
    'untagged[]',
    'tags[]',
    'is[tag]',
    'is[orphan]',
    'is[shadow]!is[tiddler]',
  ),
  tag.map((t) => `tag[${t}]`),
  field.map((f) => `has[${f}]`),
  field.map((f) => `has:field[${f}]`),
  fc.constantFrom('Secret chat', 'Other chat', 'Demo chat', 'user').map((v) => `field:agent-chat[${v}]`),
  fc.constantFrom('user', 'assistant', 'cook').map((v) => `field:role[${v}]`),
  word.map((w) => `search[${w}]`),
  word.map((w) => `search:title[${w}]`),
  word.map((w) => `search:text,title:some[${w} Garden]`),
  word.map((w) => `search:*[${w}]`),
  // The text index: ranked over what the agent sees, so the view of A ranks exactly as B does.
  word.map((w) => `aisearch[${w}]`),
  word.map((w) => `aisearch:system[${w}]`),
  fc.constantFrom('$:/ai', '$:/temp', '$:/state', '$:/is', 'Secret', 'Req', 'Note').map((p) => `prefix[${p}]`),
  title.map((t) => `{${t}}`),
  title.map((t) => `{${t}!!list}enlist-input[]`),
  title.map((t) => `enlist{${t}!!list}`),
  title.map((t) => `list[${t}]`),
  title.map((t) => `subfilter{${t}}`),
  title.map((t) => `title[${t}]tagging[]`),
  fc.constantFrom('<probe>', 'title<probe>', '<probe>addprefix[$:/ai/messages/]', 'all[tiddlers]field:agent-chat<probe>'),
);
/** Further steps of a run: operators that map titles to others or to values, that sort, and that narrow. */
const step = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'get[text]',
      'get[agent-chat]',
      'get[role]',
      'get[list]',
      'get[tags]',
      'get[agent]',
      'tags[]',
      'tagging[]',
      'backlinks[]',
      'links[]',
      'list[]',
      'listed[]',
      'listed[tags]',
      'count[]',
      'fields[]',
      'transcludes[]',
      'backtranscludes[]',
      'enlist-input[]',
      'shadowsource[]',
      'indexes[]',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'sort[]',
      '!sort[modified]',
      'sort[title]',
      'nsort[agent-seq]',
      'limit[3]',
      '!limit[2]',
      'first[]',
      'last[]',
      'rest[]',
      'reverse[]',
      'each[type]',
      'each[role]',
      'each:list-item[tags]',
    ),
  },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.constantFrom(
        'is[missing]',
        'is[system]',
        '!is[system]',
        'is[tiddler]',
        '!is[tiddler]',
        'is[shadow]',
        '!is[shadow]',
        'is[tag]',
        'is[orphan]',
        'haschanged[]',
        '!haschanged[]',
      ),
      fc.constantFrom(
        'prefix[$:/ai]',
        'prefix[Sec]',
        'has[agent]',
        '!has[agent-chat]',
        'has[list]',
        'field:role[user]',
        'field:agent-chat[Secret chat]',
        '!tag[Notes]',
        'regexp[(?i)secret]',
      ),
      tag.map((t) => `tag[${t}]`),
      word.map((w) => `search[${w}]`),
      word.map((w) => `search:title[${w}]`),
      word.map((w) => `aisearch[${w}]`),
      title.map((t) => `filter{${t}}`),
    ),
  },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.constantFrom(
        'then[Garden]',
        'else[Nothing]',
        'addprefix[x]',
        'splitbefore[/]',
        'removeprefix[$:/]',
        'getindex[y]',
        'getindex[headers]',
        'jsonget[headers],[Authorization]',
        'lookup:none[$:/ai/messages/]',
        'lookup:none[$:/a],[title]',
      ),
      title.map((t) => `subfilter{${t}}`),
      title.map((t) => `addsuffix{${t}}`),
      fc.constantFrom('addsuffix<probe>', 'lookup:none<probe>', 'tag<probe>'),
    ),
  },
);
const run = fc.tuple(start, fc.array(step, { maxLength: 3 })).map(([s, steps]) => `[${s}${steps.join('')}]`);
/** Runs after the first: every run prefix. */
const prefix = fc.constantFrom(
  '',
  '+',
  '-',
  '~',
  '=',
  ':filter',
  ':map',
  ':map:flat',
  ':intersection',
  ':all',
  ':and',
  ':or',
  ':else',
  ':except',
  ':sort:string',
  ':then',
);
const special = fc.constantFrom(
  ':cascade[all[shadows+tiddlers]tag[Cascade]get[text]]',
  ':reduce[get[text]length[]add<accumulator>]',
  ':sort:number[get[agent-seq]]',
  ':map[get[list]enlist-input[]] :and[!is[missing]]',
);
const later = fc.oneof({ weight: 8, arbitrary: fc.tuple(prefix, run).map(([p, r]) => p + r) }, { weight: 1, arbitrary: special });
const filter = fc.tuple(run, fc.array(later, { maxLength: 2 })).map(([first, runs]) => [first, ...runs].join(' '));

// ---------------------------------------------------------------------------------------------
// The properties

/** A widget that gives a filter on the real wiki its variables (as the port gives them to the view). */
const withVariables = (tw: TW, variables: Record<string, string> | undefined) =>
  variables && tw.wiki.makeWidget({ tree: [] }, {}).makeFakeWidgetWithVariables(variables);

/** How many generated filters answer otherwise on A's real wiki: they did reach hidden tiddlers. */
const reached = { runs: 0, hidden: 0 };

/** B's answer (plain and through B's view) is what A's view answers, whichever cache was filled first. */
function checkFilter(f: string, probe: string) {
  const variables = f.includes('<probe>') ? { probe } : undefined;
  const expected = B.wiki.filterTiddlers(f, withVariables(B, variables)) as string[];
  expect(portB().filter(f, variables)).toEqual(expected);
  expect(portB().agentView().filter(f, variables)).toEqual(expected);
  // The real wiki compiles and caches the filter first, then the view runs it …
  const real = A.wiki.filterTiddlers(f, withVariables(A, variables)) as string[];
  expect(portA().agentView().filter(f, variables)).toEqual(expected);
  // … or the view first (the same filter under another cache key), then the real wiki (whose
  // answer the view did not change either), then the view again.
  const g = `${f} `;
  expect(portA().agentView().filter(g, variables)).toEqual(expected);
  expect(A.wiki.filterTiddlers(g, withVariables(A, variables))).toEqual(real);
  expect(portA().agentView().filter(g, variables)).toEqual(expected);
  // The view of a sandbox over A (user tools run in one, the write filter is evaluated in one).
  expect(portA().sandbox().agentView().filter(f, variables)).toEqual(expected);
  reached.runs++;
  if (JSON.stringify(real) !== JSON.stringify(expected)) reached.hidden++;
}

const FILTER_RUNS = 300;

test(`random filters (${FILTER_RUNS} runs): the agent view of a wiki with hidden tiddlers = the wiki without them, whichever cache was filled first`, () => {
  fc.assert(
    fc.property(filter, title, (f, probe) => checkFilter(f, probe)),
    {
      numRuns: FILTER_RUNS,
      seed: SEED,
      // The oracles of issue 9 are always among the cases.
      examples: [
        ['[[$:/ai/messages/Secret chat/000001]get[text]search[password]then[Garden]]', 'Garden'],
        ['[[$:/a]addsuffix[i/messages/Secret chat/000001]get[text]]', 'Garden'],
        ['[[Secret chat]haschanged[]then[yes]]', 'Garden'],
        ['[search[hunter2]] [has[agent-chat]count[]]', 'Garden'],
        ['[tag[Notes]] [[Garden]backlinks[]] [[Garden]listed[]]', 'Garden'],
        ['[[i/messages/Secret chat/000001]lookup[$:/a]]', 'Garden'],
        ['[<probe>get[text]search[hunter2]then[yes]]', '$:/ai/messages/Secret chat/000001'],
      ],
    },
  );
  // Not vacuous: a good part of the filters answer otherwise on the real wiki.
  expect(reached.hidden).toBeGreaterThan(reached.runs / 5);
});

test('random searches through the view (WikiPort.search) find what the wiki without hidden tiddlers finds', () => {
  const query = fc.array(word, { minLength: 1, maxLength: 3 }).map((ws) => ws.join(' '));
  fc.assert(
    fc.property(query, fc.boolean(), fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }), (q, titlesOnly, limit) => {
      const expected = portB().search(q, { titlesOnly, limit });
      A.wiki.search(q, titlesOnly ? { field: 'title' } : {}); // the real wiki searches too
      expect(portA().agentView().search(q, { titlesOnly, limit })).toEqual(expected);
      expect(portB().agentView().search(q, { titlesOnly, limit })).toEqual(expected);
    }),
    { numRuns: 100, seed: SEED },
  );
});

test('lookups through the view (WikiPort.getFields) find what the wiki without hidden tiddlers holds, for every title', () => {
  for (const t of TITLES) expect([t, portA().agentView().getFields(t)]).toEqual([t, portB().getFields(t)]);
});

test('rendering a tiddler that transcludes or lists random titles and filters shows nothing hidden', () => {
  let n = 0;
  fc.assert(
    fc.property(title, filter, (t, f) => {
      const probe = {
        title: 'Probe',
        text: [
          `{{${t}}} {{${t}!!agent-chat}} {{${t}##y}} <$transclude $tiddler="""${t}""" $field="list"/>`,
          `<$list filter="""${f} +[limit[12]]"""><$view field="title"/>: <$list filter="[all[current]!is[system]]"><$view field="text"/></$list>;</$list>`,
          `<$count filter="""${f}"""/> <$text text={{{ ${f} }}}/> {{{ ${f} +[!is[system]limit[3]] }}}`,
          `<<greet>> <<secret-proc>> <<toc "${t}">> <<unusedtitle baseName:"${t}">> <$text text={{{ [[${t}]is[tiddler]then[yes]else[no]] }}}/>`,
        ].join('\n\n'),
      };
      A.wiki.addTiddler(probe);
      B.wiki.addTiddler(probe);
      if (n++ % 2) A.wiki.renderTiddler('text/plain', 'Probe'); // the real wiki renders it first, or not
      const expected = portB().renderPlainText('Probe');
      expect(portA().agentView().renderPlainText('Probe')).toBe(expected);
      expect(portA().renderPlainText('Probe')).toBe(expected); // rendering for the agent hides, whichever port asks
    }),
    { numRuns: 60, seed: SEED },
  );
  A.wiki.deleteTiddler('Probe');
  B.wiki.deleteTiddler('Probe');
});

// ---------------------------------------------------------------------------------------------
// Counterexamples the properties found: bugs in the view, each with its smallest wiki pair
// (C with the hidden tiddlers, D without). Each fails until the view is fixed.

describe('counterexamples', () => {
  const pluginWith = (tiddlers: Record<string, Fields>): Fields => ({
    title: '$:/plugins/test/hidden-view',
    'plugin-type': 'plugin',
    type: 'application/json',
    version: '1.0.0',
    text: JSON.stringify({ tiddlers }),
  });
  const visibleShadows = { 'Plugin note': { title: 'Plugin note', text: 'a visible shadow' } };
  const hiddenShadows = {
    'Plugin chat': { title: 'Plugin chat', agent: 'x', text: 'hunter2' },
    '$:/ai/plugin-state': { title: '$:/ai/plugin-state', text: 'hunter2' },
  };
  const both: Fields[] = [
    { title: 'Garden', tags: 'Notes', text: 'garden' },
    { title: 'Compost', tags: 'Notes', 'list-before': 'Request log', text: 'compost' },
    { title: 'Shed', tags: '[[Secret chat]]', text: '{{Garden}}' },
    { title: 'Greenhouse', tags: '[[Secret chat]]', text: 'warm' },
    { title: 'Plugin chat', text: 'a visible tiddler over a hidden shadow' },
  ];
  const hidden: Fields[] = [
    { title: 'Secret chat', agent: 'x', list: 'Shed Greenhouse' },
    { title: 'Request log', tags: '$:/tags/HttpRequest Notes', text: 'hunter2' },
    { title: '$:/language/SideBar/Open/Caption', agent: 'x', text: 'hunter2' },
  ];
  let C: TW;
  let D: TW;
  const view = () => agentLib(C).createTiddlyWikiPort(C.wiki).agentView();
  const plain = () => agentLib(D).createTiddlyWikiPort(D.wiki);
  const same = (f: string) => expect(view().filter(f)).toEqual(plain().filter(f));

  beforeAll(async () => {
    C = await bootWiki([pluginWith({ ...visibleShadows, ...hiddenShadows }), ...both, ...hidden]);
    D = await bootWiki([pluginWith(visibleShadows), ...both]);
    for (const tw of [C, D]) {
      tw.wiki.deleteTiddler('Demo chat');
      delete tw.wiki.changeCount['Demo chat'];
    }
  });

  // TagIndexer.lookup sorts its titles once with the REAL wiki's sortByList(titles, tag): the
  // list field of a hidden tag tiddler orders visible tiddlers (getTiddlersWithTag and the
  // each.byTag that [tag[]] uses both come from that index; the view only drops hidden titles
  // from the sorted result).
  test("tiddlers tagged with a hidden title are not ordered by the hidden tiddler's list", () => {
    expect(plain().filter('[tag[Secret chat]]')).toEqual(['Greenhouse', 'Shed']);
    same('[tag[Secret chat]]');
    same('[[Secret chat]tagging[]]');
    same('[all[tiddlers]tag[Secret chat]]');
  });

  // The same sort with the real wiki: Compost's list-before names a hidden tiddler, which is in
  // the real index, so Compost moves next to it; without the hidden tiddler it stays.
  test('a visible tiddler whose list-before names a hidden tiddler is not moved by it', () => {
    expect(plain().filter('[tag[Notes]]')).toEqual(['Compost', 'Garden']);
    same('[tag[Notes]]');
    same('[[Notes]tagging[]]');
  });

  // filteredView treats a title as a shadow only when the tiddler the REAL wiki returns for it
  // (the overriding tiddler, if any) is visible, and TiddlyWiki's eachShadow and
  // eachTiddlerPlusShadows hand out the overriding tiddler. So a visible shadow under a hidden
  // override vanishes from the view (D, without the override, shows the shadow) ...
  test('a visible shadow overridden by a hidden tiddler is still there', () => {
    const caption = '$:/language/SideBar/Open/Caption';
    expect(plain().filter(`[[${caption}]is[shadow]]`)).toEqual([caption]);
    same(`[[${caption}]is[shadow]]`);
    same(`[[${caption}]get[text]]`);
    same('[all[shadows]prefix[$:/language/SideBar/Open/]]');
    same('[all[tiddlers+shadows]prefix[$:/language/SideBar/Open/]]');
    expect(view().getFields(caption)).toEqual(plain().getFields(caption));
  });

  // ... and a hidden shadow under a visible override is a shadow in the view (is[shadow],
  // shadowsource[], all[shadows]), which D, without the hidden shadow, does not know.
  test('a hidden shadow tiddler overridden by a visible tiddler is not a shadow', () => {
    expect(plain().filter('[[Plugin chat]is[shadow]]')).toEqual([]);
    same('[[Plugin chat]is[shadow]]');
    same('[[Plugin chat]shadowsource[]]');
    same('[all[shadows]prefix[Plugin]]');
  });

  // The plugin tiddler itself (visible) carries its hidden shadow tiddlers in its text, and
  // plugintiddlers[] lists them from the real wiki's plugin info. A known limitation (docs/security.md,
  // "Not enforced"): no plugin ships hidden shadow tiddlers (chats and messages are never shadows).
  // `failing` keeps it on record: it starts to fail the day the view hides them.
  test.failing('a plugin does not show its hidden shadow tiddlers', () => {
    same('[[$:/plugins/test/hidden-view]plugintiddlers[]]');
    same('[[$:/plugins/test/hidden-view]get[text]search[hunter2]then[found]]');
  });

  // Not about hiding: a sandbox switches the indexes off (getIndexer returns null), and
  // getTiddlerBacktranscludes has no fallback without the BackIndexer, so [backtranscludes[]]
  // is always empty in a sandbox and in its agent view.
  test('a sandbox finds backtranscludes', () => {
    expect(plain().filter('[[Garden]backtranscludes[]]')).toEqual(['Shed']);
    expect(plain().sandbox().filter('[[Garden]backtranscludes[]]')).toEqual(['Shed']);
    expect(agentLib(C).createTiddlyWikiPort(C.wiki).sandbox().agentView().filter('[[Garden]backtranscludes[]]')).toEqual(['Shed']);
  });
});

// PDFs cited by page (issue 27 items 1 and 5), in a real TiddlyWiki (Node, fake DOM) with a real
// PDF made here (scripts/make-pdf.cjs): the agent searches (the hit names the page), reads the
// PDF and replies citing `[[Title]] (page 7)`; the reply's source records page 7, its chip says
// "Title, p. 7", a page beyond the PDF's count is unverified, the export lists the page, and
// the staleness check still marks the reply when the PDF changes.
import { bootEngineWiki, disposeRunners, reply, scriptedModel, scriptedRunner, toolCalls, within, type Harness } from './engine/harness';
import { find, findAll, type FakeNode } from '../helpers/tw';

const { makePdf } = require('../../scripts/make-pdf.cjs');

const TITLE = 'Field report.pdf';
const pageText = (n: number) => (n === 7 ? 'On page seven: the quokka colony by the salt marsh.' : `Page ${n} lists ordinary birds.`);
const REPORT = makePdf(Array.from({ length: 10 }, (_, i) => pageText(i + 1))).toString('base64');

let h: Harness;

beforeAll(async () => {
  h = await bootEngineWiki();
  h.$tw.wiki.addTiddler({ title: TITLE, type: 'application/pdf', text: REPORT });
  h.$tw.wiki.addTiddler({ title: 'Unread.pdf', type: 'application/pdf', text: makePdf(['Nothing about marshes.']).toString('base64') });
  // The PDF's text is extracted and in the ranked index before the turns search it.
  await h.lib.documentText(h.fields(TITLE));
  const found = () => {
    const search = h.port.rankedSearch('quokka');
    return search.ready && search.hits.some((hit) => hit.title === TITLE);
  };
  for (let i = 0; i < 200 && !found(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(found()).toBe(true);
});
afterEach(() => disposeRunners());

const sourcesOf = (chat: string) => {
  const last = h
    .messages(chat)
    .filter((m) => m.role === 'assistant')
    .at(-1)!;
  return last['agent-sources'] === undefined ? undefined : JSON.parse(last['agent-sources']);
};

/** A chat whose agent searched for "quokka", read the PDF, and then replied `text`. */
async function turn(text: string) {
  const chat = h.newChat({ 'agent-tools': 'wiki-read wiki-search' });
  const s = scriptedModel([toolCalls(['s1', 'wiki-search', { query: 'quokka' }]), toolCalls(['r1', 'wiki-read', { title: TITLE }]), reply(text)]);
  expect(await within(scriptedRunner(h, s.model, h.lib.WIKI_READ_TOOLS).submit({ kind: 'send', chat, text: 'Where is the colony?' }), 'the turn')).toEqual({
    status: 'completed',
  });
  return { chat, requests: s.requests };
}

function render(chat: string) {
  const parser = h.$tw.wiki.parseText('text/vnd.tiddlywiki', `<$ai-chat chat="${chat}"/>`);
  const widget = h.$tw.wiki.makeWidget(parser, { document: h.$tw.fakeDocument });
  const container = h.$tw.fakeDocument.createElement('div');
  widget.render(container, null);
  return { widget, container };
}

const chipOf = (container: FakeNode) => findAll(container, 'tc-ai-source').find((c: FakeNode) => c.attributes['data-title'] === TITLE);

test('a PDF searched, read and cited by page: the hit names the page, the source records it, the chip and the export show it', async () => {
  const { chat, requests } = await turn(`The colony is by the salt marsh ([[${TITLE}]] (page 7)).`);
  // The search told the model the page; the prompt asks to cite a PDF's page.
  const searchResult = h.messages(chat).find((m) => m.role === 'tool' && m['tool-name'] === 'wiki-search')!;
  expect(searchResult.text).toMatch(/\[page 7\] [^\n]*quokka colony/);
  expect(requests[0]!.messages.some((m) => m.role === 'system' && m.content.includes('[[Report.pdf]] (page 7)'))).toBe(true);
  expect(sourcesOf(chat)).toEqual([{ title: TITLE, modified: '', fingerprint: h.lib.fingerprint(h.fields(TITLE)), cited: true, pages: [7] }]);
  const chip = chipOf(render(chat).container);
  expect(chip.textContent).toBe(`${TITLE}, p. 7`);
  expect(chip.attributes.href).toBe(`#${encodeURIComponent(TITLE)}`);
  expect(findAll(chip, 'tc-ai-source-page-unverified')).toHaveLength(0);
  const md = h.lib.exportChat(h.$tw.wiki, chat, 'markdown').file!.text;
  expect(md).toContain(`- Sources: \`${TITLE}\` (p. 7)`);
  const transcript = h.lib.exportChat(h.$tw.wiki, chat, 'wikitext').tiddler!;
  expect(h.$tw.wiki.getTiddlerText(transcript)).toContain(`* Sources: [[${TITLE}]] (p. 7)`);
});

test('the ways of naming pages after a link are read; a page beyond the PDF is unverified', async () => {
  const { chat } = await turn(`See [[${TITLE}]], p. 2, [[the report|${TITLE}]] pp. 7-8 and [[${TITLE}]] [page 42].`);
  // (The first test's exported transcript, which the search also finds, is a source read, not cited.)
  expect(sourcesOf(chat)[0]).toEqual({
    title: TITLE,
    modified: '',
    fingerprint: h.lib.fingerprint(h.fields(TITLE)),
    cited: true,
    pages: [2, 7, 8],
    unverifiedPages: [42],
  });
  const chip = chipOf(render(chat).container);
  expect(chip.textContent).toBe(`${TITLE}, p. 2, 7–8 (no page 42 in this PDF)`);
  expect(chip.attributes.title).toContain('the PDF has no such page');
  const md = h.lib.exportChat(h.$tw.wiki, chat, 'markdown').file!.text;
  expect(md).toContain(`- Sources: \`${TITLE}\` (p. 2, 7–8; no page 42 in the PDF)`);
});

test('a PDF cited by page that the turn never read is unverified as a whole, its page kept as named', async () => {
  const { chat } = await turn(`Also [[Unread.pdf]] (page 3).`);
  expect(sourcesOf(chat).find((source: { title: string }) => source.title === 'Unread.pdf')).toEqual({
    title: 'Unread.pdf',
    modified: '',
    fingerprint: '',
    cited: true,
    pages: [3],
  });
  const chip = findAll(render(chat).container, 'tc-ai-source-unverified')[0];
  expect(chip.textContent).toBe('Unread.pdf, p. 3 (unverified)');
});

test('a PDF cited by page is still watched: replacing the PDF marks the reply', async () => {
  const { chat } = await turn(`By the marsh, [[${TITLE}]] (page 7).`);
  const { widget, container } = render(chat);
  const line = () => find(container, 'tc-ai-sources-changed');
  expect(line().attributes.hidden).not.toBeUndefined();
  await new Promise<void>((resolve) => {
    const listener = (changes: unknown) => {
      h.$tw.wiki.removeEventListener('change', listener);
      widget.refresh(changes);
      resolve();
    };
    h.$tw.wiki.addEventListener('change', listener);
    h.$tw.wiki.addTiddler(new h.$tw.Tiddler(h.$tw.wiki.getTiddler(TITLE), { text: makePdf(['A new edition, no quokkas.']).toString('base64') }));
  });
  expect(line().attributes.hidden).toBeUndefined();
  expect(line().textContent).toContain(TITLE);
});

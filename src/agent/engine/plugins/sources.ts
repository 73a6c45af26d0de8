/*\
Built-in plugin: a reply's sources (store/sources.ts). The prompt asks the model to cite the
tiddlers it uses by title, as `[[Title]]` links. When a reply with text is complete, the
tiddlers the turn's tool results showed the agent (their `agent-read`, store/read-ledger.ts,
later versions winning) and the titles the reply cites become its sources, set on the
response for the persistence plugin to write with the reply. The Current tiddler its prompt
showed counts only when cited. A cited title the turn never read is recorded without a
fingerprint (unverified). Hidden tiddlers (tools/visibility.ts) are never recorded, read or
cited. A cited PDF records the pages named after its link (store/sources.ts citedPages); a
page beyond the PDF's page count (or in a PDF that cannot be read) is recorded as unverified.
\*/
import { fingerprint } from '../../store/fingerprint';
import { parseReads, READ_FIELD } from '../../store/read-ledger';
import type { Message } from '../../store/schemas';
import { citedPages, citedTitles, MAX_SOURCES, type Source } from '../../store/sources';
import type { WikiPort } from '../../store/wiki-port';
import { isPdfTiddler } from '../../tools/documents';
import { isHiddenFromAgent } from '../../tools/visibility';
import { liveHistory } from '../compaction';
import type { EnginePlugin, ModelResponse, TurnContext } from '../hooks';

/** The request to cite, in the prompt of an agent that can read tiddlers. */
export const CITE_REQUEST =
  'When your answer uses what you read in tiddlers, cite each one by its exact title as a link, like [[Title]], so the user can check it. Cite only tiddlers you actually read. For a PDF, name the page right after the link, like [[Report.pdf]] (page 7).';

export const sourcesPlugin: EnginePlugin = {
  name: 'sources',
  apply(hooks) {
    hooks.processPrompts.tap('sources', (build, ctx) => {
      if (!ctx.tools.has('wiki-read')) return;
      const system = build.sections.findIndex((section) => section.id === 'system');
      build.sections.splice(system + 1, 0, { id: 'cite', kind: 'system', protected: true, messages: [{ role: 'system', content: CITE_REQUEST }] });
    });
    hooks.responseComplete.tap('sources', async (response, ctx) => {
      if (!response.text.trim()) return;
      const sources = replySources(ctx, response);
      if (sources.length) response.sources = await withPages(ctx.store.wiki, sources, response.text);
    });
  },
};

/** The reply's sources: what the turn read (in the order first read), then what it cites without having read it. */
export function replySources(ctx: TurnContext, response: ModelResponse): Source[] {
  const wiki = ctx.store.wiki;
  const reads = turnReads(liveHistory(ctx.store.listMessages(ctx.chat)).messages);
  const cited = new Set(citedTitles(response.text));
  for (const [title, version] of Object.entries(response.reads ?? {})) if (cited.has(title) && !reads.has(title)) reads.set(title, version);
  const sources: Source[] = [];
  for (const [title, version] of reads) {
    const fields = wiki.getFields(title);
    if (isHiddenFromAgent(title, fields)) continue;
    // The modified seen: the tiddler's own, while it is still the version read.
    const modified = fields && fingerprint(fields) === version ? (fields.modified ?? '') : '';
    sources.push({ title, modified, fingerprint: version, cited: cited.has(title) });
  }
  for (const title of cited) {
    if (reads.has(title) || isHiddenFromAgent(title, wiki.getFields(title))) continue;
    sources.push({ title, modified: '', fingerprint: '', cited: true });
  }
  // Cited ones first, so a cap never drops what the reply relies on.
  return [...sources.filter((s) => s.cited), ...sources.filter((s) => !s.cited)].slice(0, MAX_SOURCES);
}

/** The cited PDFs' pages the reply names, each checked against the PDF's page count. */
async function withPages(wiki: WikiPort, sources: Source[], text: string): Promise<Source[]> {
  const named = citedPages(text);
  if (!named.size) return sources;
  const out: Source[] = [];
  for (const source of sources) {
    const pages = source.cited ? named.get(source.title) : undefined;
    if (!pages || !isPdfTiddler(wiki.getFields(source.title))) {
      out.push(source);
      continue;
    }
    // A PDF the turn never read is unverified as a whole: its pages are kept as named, nothing is extracted for it.
    if (!source.fingerprint) {
      out.push({ ...source, pages });
      continue;
    }
    const pdf = await wiki.documentText?.(source.title).catch(() => undefined);
    const count = pdf && 'pages' in pdf ? pdf.pages.length : 0;
    const has = pages.filter((p) => p <= count);
    const lacks = pages.filter((p) => p > count);
    out.push({ ...source, ...(has.length ? { pages: has } : {}), ...(lacks.length ? { unverifiedPages: lacks } : {}) });
  }
  return out;
}

/** Title -> version the current turn's tool results showed (after the last user message; later wins, first read keeps its place). */
function turnReads(messages: readonly Message[]): Map<string, string> {
  let start = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') {
      start = i + 1;
      break;
    }
  }
  const reads = new Map<string, string>();
  for (const m of messages.slice(start)) {
    if (m.role !== 'tool' || !m[READ_FIELD]) continue;
    for (const [title, version] of Object.entries(parseReads(m[READ_FIELD]))) reads.set(title, version);
  }
  return reads;
}

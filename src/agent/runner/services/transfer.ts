/*\
Export and import in a wiki: gathers a chat's tiddlers for store/transfer/export.ts, and writes
an import plan (store/transfer/import-file.ts) only once the whole file has been read and
checked, so a refused file leaves nothing behind. The UI (ui/transfer-widget.ts, the chat's
Export menu) calls these; a download goes through TiddlyWiki's tm-download-file.
\*/
import type { Wiki } from 'tiddlywiki';
import { chatParts, chatPartTitles, exportedParts } from '../../store/chat-parts';
import { CONFIG, configValue } from '../../store/config';
import { AGENT_TAG } from '../../store/schemas';
import { parseTitleList, type TiddlerFields } from '../../store/wiki-port';
import { exportBundle, exportMarkdown, exportTranscript, type ChatExport, type ExportFormat, type ExportWords } from '../../store/transfer/export';
import { planImport } from '../../store/transfer/import-file';
import { ImportError, type ImportPlan, type ImportTarget } from '../../store/transfer/plan';
import { lingoOf } from '../lingo';
import { isHiddenFromAgent } from '../../tools/visibility';
import { createTiddlyWikiPort } from '../host/tiddlywiki-port';

export { checkImportSize, formatSize } from '../../store/transfer/import-file';
export { ImportError, MAX_IMPORT_BYTES, type ImportPlan } from '../../store/transfer/plan';
export type { ExportFormat } from '../../store/transfer/export';

/** The tools an imported agent may get at most: the default agent's (the user's own choice of tools). */
export const IMPORT_TOOL_CEILING = CONFIG.importToolCeiling;

function fieldsOf(wiki: Wiki, title: string): TiddlerFields | undefined {
  const t = wiki.getTiddler(title);
  if (!t) return undefined;
  const out: TiddlerFields = {};
  for (const name of Object.keys(t.fields)) out[name] = t.getFieldString(name);
  return out;
}

function words(wiki: Wiki): ExportWords {
  const read = (title: string) => wiki.getTiddlerText(title) ?? undefined;
  const w = (key: string) => lingoOf(read, `Transfer/Words/${key}`);
  return {
    user: w('User'),
    assistant: w('Assistant'),
    tool: w('Tool'),
    error: w('Error'),
    toolCall: w('ToolCall'),
    agent: w('Agent'),
    exported: w('Exported'),
    running: w('Running'),
    attachment: w('Attachment'),
    sources: w('Sources'),
    unverified: w('Unverified'),
    pages: w('Pages'),
    pagesUnverified: w('PagesUnverified'),
  };
}

/** What a chat export holds: finished messages only (a streaming reply is no tiddler yet). */
export function gatherChat(wiki: Wiki, chat: string, options: { journals?: boolean } = {}): ChatExport {
  const fields = fieldsOf(wiki, chat);
  if (!fields?.agent) throw new ImportError(`"${chat}" is not a chat.`);
  // The chat's own parts (store/chat-parts.ts): never another chat's whose title starts with this one's.
  const parts = chatParts(createTiddlyWikiPort(wiki), chat, exportedParts(!!options.journals));
  const read = (titles: string[] | undefined) => (titles ?? []).map((t) => fieldsOf(wiki, t)!);
  const messages = read(parts.messages).sort((a, b) => Number(a['agent-seq']) - Number(b['agent-seq']));
  return {
    chat: fields,
    messages,
    images: read(parts.images),
    journals: read(parts.journals),
    running: fields['agent-status'] === 'working',
    exportedAt: new Date().toISOString(),
    hiddenSource: (title) => isHiddenFromAgent(title, wiki.getTiddler(title)?.fields),
  };
}

export interface ExportResult {
  /** A file to download (json, markdown) … */
  file?: { name: string; type: string; text: string };
  /** … or the transcript tiddler made (wikitext). */
  tiddler?: string;
  /** A turn was running: the reply in progress is not in the export. */
  running: boolean;
}

function fileName(chat: string, ext: string): string {
  return `${
    chat
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are not allowed in file names, so they are replaced
      .replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_')
      .trim()
      .slice(0, 100) || 'chat'
  }.${ext}`;
}

/** Export a chat; `journals` adds its turn journals to a JSON bundle (another wiki's import leaves them out). */
export function exportChat(wiki: Wiki, chat: string, format: ExportFormat, options: { journals?: boolean } = {}): ExportResult {
  const x = gatherChat(wiki, chat, options);
  if (format === 'json') return { running: x.running, file: { name: fileName(chat, 'json'), type: 'application/json', text: exportBundle(x) } };
  if (format === 'markdown') return { running: x.running, file: { name: fileName(chat, 'md'), type: 'text/markdown', text: exportMarkdown(x, words(wiki)) } };
  let title = `${chat} (transcript)`;
  for (let n = 2; wiki.tiddlerExists(title) && wiki.getTiddler(title)?.fields['agent-transcript-of'] !== chat; n++) title = `${chat} (transcript ${n})`;
  wiki.addTiddler(new $tw.Tiddler(exportTranscript(x, words(wiki), title, twNow())));
  return { running: x.running, tiddler: title };
}

function twNow(): string {
  return $tw.utils.stringifyDate(new Date());
}

/** The import target: what exists, the default agent for chats, the provider and tool ceiling for agents. */
function targetOf(wiki: Wiki): ImportTarget {
  const agent = configValue(wiki, CONFIG.defaultAgent);
  const definition = wiki.getTiddler(agent);
  const ceiling = configValue(wiki, IMPORT_TOOL_CEILING) || undefined;
  const port = createTiddlyWikiPort(wiki);
  return {
    exists: (title) => wiki.tiddlerExists(title) || wiki.isShadowTiddler(title),
    hasParts: (chat) => chatPartTitles(port, chat).length > 0,
    now: twNow(),
    agent,
    provider: definition?.getFieldString('agent-provider') ?? '',
    toolCeiling: parseTitleList(ceiling ?? definition?.getFieldString('agent-tools')),
  };
}

/** Plan an import of a file's text and, when it all checks out, write it; nothing is written on an ImportError. */
export function importText(wiki: Wiki, name: string, text: string): ImportPlan {
  const isAgent = (title: string) => (wiki.getTiddler(title)?.fields.tags as string[] | undefined)?.includes(AGENT_TAG) ?? false;
  const plan = planImport(name, text, targetOf(wiki), isAgent);
  // The plan chose free titles; a write in between (another tab, the server) must not be overwritten.
  const clash = plan.tiddlers.find((t) => wiki.tiddlerExists(t.title!));
  if (clash) throw new ImportError(`"${clash.title}" appeared while importing; nothing was imported. Try again.`);
  for (const t of plan.tiddlers) wiki.addTiddler(new $tw.Tiddler(t));
  return plan;
}

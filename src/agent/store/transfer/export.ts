/*\
Export a chat: as a JSON tiddler bundle (TiddlyWiki's own .json format, an array of tiddler
fields, so dropping the file on another wiki imports it), as Markdown, and as one readable
transcript tiddler. Pure: the runner gathers the tiddlers and saves or writes the result.
Only finished messages are tiddlers, so a reply still streaming is never in an export; the
`running` flag adds a line that says so.
\*/
import { REPLY_TYPE } from '../chat-store';
import { pagesLabel, parseSources, type Source } from '../sources';
import { parseTitleList, type TiddlerFields } from '../wiki-port';
import { wikitextToMarkdown } from './wikitext-markdown';

export type ExportFormat = 'json' | 'markdown' | 'wikitext';

export interface ChatExport {
  chat: TiddlerFields;
  /** The chat's messages in order (by agent-seq). */
  messages: TiddlerFields[];
  /** The images the chat keeps ($:/ai/images/<chat>/…). */
  images: TiddlerFields[];
  /** The chat's turn journals, if the user asked for them. */
  journals: TiddlerFields[];
  /** A turn was running: its reply is not in the export. */
  running: boolean;
  /** When the export was made (ISO 8601). */
  exportedAt: string;
  /** A source now hidden from agents (a chat, `$:/ai/…`, a secret) is left out of the lists, as the chat leaves it out. */
  hiddenSource?: (title: string) => boolean;
}

/** Words the exports write: the runner passes them in the user's language. */
export interface ExportWords {
  user: string;
  assistant: string;
  tool: string;
  error: string;
  toolCall: string;
  agent: string;
  exported: string;
  running: string;
  attachment: string;
  /** A reply's sources (store/sources.ts) and the mark of a cited title it never read. */
  sources?: string;
  unverified?: string;
  /** A cited PDF's pages ("p. $pages$"). */
  pages?: string;
  /** Pages a cited PDF lacks ("no page $pages$ in the PDF"). */
  pagesUnverified?: string;
}

/** The bundle: chat first, then messages, images and journals, each with every field. */
export function exportBundle(x: ChatExport): string {
  return JSON.stringify([x.chat, ...x.messages, ...x.images, ...x.journals], null, 1);
}

/** A one-line summary of a reply's tool calls: `name(arg: value, …)`, long values cut. */
export function toolCallSummary(json: string | undefined): string[] {
  if (!json) return [];
  try {
    const calls = JSON.parse(json) as { name?: unknown; args?: unknown }[];
    if (!Array.isArray(calls)) return [];
    // One line each: a value with line breaks (the model's) must not start a heading of its own.
    return calls.map((c) => oneLine(`${String(c.name)}(${argsSummary(c.args)})`));
  } catch {
    return [];
  }
}

/** Line breaks as spaces: a line of an export is never split by a value it quotes. */
function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ');
}

function argsSummary(args: unknown): string {
  if (!args || typeof args !== 'object') return '';
  return Object.entries(args as Record<string, unknown>)
    .map(([k, v]) => {
      const s = typeof v === 'string' ? v : JSON.stringify(v);
      return `${k}: ${s.length > 60 ? `${s.slice(0, 57)}…` : s}`;
    })
    .join(', ');
}

function roleHeading(m: TiddlerFields, words: ExportWords): string {
  switch (m.role) {
    case 'user':
      return words.user;
    case 'assistant':
      return words.assistant;
    case 'tool':
      return `${words.tool}: ${m['tool-name'] ?? ''}${m['tool-status'] ? ` (${m['tool-status']})` : ''}`;
    default:
      return words.error;
  }
}

/** A fence longer than any run of backticks in the text, so the text cannot close it. */
function fence(text: string): string {
  let longest = 2;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(longest + 1);
}

/** Markdown: a heading per message and role, tool results in code blocks, tool calls summarised, images referenced. */
export function exportMarkdown(x: ChatExport, words: ExportWords): string {
  const title = x.chat.caption || x.chat.title!;
  const lines = [`# ${title}`, '', `*${words.agent}: ${x.chat.agent ?? ''} · ${words.exported}: ${x.exportedAt}*`, ''];
  if (x.running) lines.push(`> ${words.running}`, '');
  for (const m of x.messages) {
    lines.push(`## ${roleHeading(m, words)}`, '');
    const text = m.text ?? '';
    if (m.role === 'tool') {
      const f = fence(text);
      lines.push(f, text, f, '');
    } else if (text) lines.push(m.role === 'assistant' || m.role === 'error' ? wikitextToMarkdown(text) : text, '');
    for (const call of toolCallSummary(m['tool-calls'])) lines.push(`- ${words.toolCall}: \`${call.replace(/`/g, "'")}\``);
    for (const a of parseTitleList(m.attachments)) lines.push(`- ${words.attachment}: ![${a}](${encodeURI(a)})`);
    const sources = sourcesLine(x, m, words, (t) => `\`${t.replace(/`/g, "'")}\``);
    if (sources) lines.push(`- ${sources}`);
    if (m['tool-calls'] || m.attachments || sources) lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/**
 * The transcript tiddler: the same outline in wikitext, of the reply type, so what the model
 * wrote renders through the safe rules (no widgets, transclusions or scripts) like in the chat.
 */
export function exportTranscript(x: ChatExport, words: ExportWords, title: string, now: string): TiddlerFields {
  const lines = [`//${words.agent}: ${x.chat.agent ?? ''} · ${words.exported}: ${x.exportedAt}//`, ''];
  if (x.running) lines.push(`<<<`, words.running, `<<<`, '');
  for (const m of x.messages) {
    lines.push(`!! ${roleHeading(m, words)}`, '');
    const text = m.text ?? '';
    if (m.role === 'tool') {
      const f = fence(text);
      if (text) lines.push(f, text, f, '');
    } else if (text) lines.push(text, '');
    for (const call of toolCallSummary(m['tool-calls'])) lines.push(`* ${words.toolCall}: \`\`${call.replace(/`/g, "'")}\`\``);
    for (const a of parseTitleList(m.attachments)) lines.push(`* ${words.attachment}: [[${a.replace(/[|\]]/g, ' ')}|${a.replace(/[|\]]/g, ' ')}]]`);
    const sources = sourcesLine(x, m, words, (t) => (/[|\]]/.test(t) ? `\`\`${t.replace(/`/g, "'")}\`\`` : `[[${t}]]`));
    if (sources) lines.push(`* ${sources}`);
    if (m['tool-calls'] || m.attachments || sources) lines.push('');
  }
  return { title, text: `${lines.join('\n').trimEnd()}\n`, type: REPLY_TYPE, created: now, modified: now, 'agent-transcript-of': x.chat.title! };
}

/** A reply's sources as one line (`title` writes a title in the export's markup), or '' when it has none. */
function sourcesLine(x: ChatExport, m: TiddlerFields, words: ExportWords, title: (t: string) => string): string {
  const sources = m.role === 'assistant' ? parseSources(m['agent-sources']).filter((s) => !x.hiddenSource?.(s.title)) : [];
  if (!sources.length) return '';
  const unverified = words.unverified || '(unverified)';
  const pages = (s: Source) => {
    const parts = [
      ...(s.pages ? [(words.pages || 'p. $pages$').replace('$pages$', pagesLabel(s.pages))] : []),
      ...(s.unverifiedPages ? [(words.pagesUnverified || 'no page $pages$ in the PDF').replace('$pages$', pagesLabel(s.unverifiedPages))] : []),
    ];
    return parts.length ? ` (${parts.join('; ')})` : '';
  };
  // A title with a line break would start a line of its own (a heading that fakes a turn).
  const list = sources.map((s) => `${title(oneLine(s.title))}${pages(s)}${s.cited && !s.fingerprint ? ` ${unverified}` : ''}`);
  return `${words.sources || 'Sources'}: ${list.join(', ')}`;
}

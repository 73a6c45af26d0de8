/*\
Import a file: refuse it above the size cap before parsing, tell its format from its shape,
and hand it to its importer. A JSON tiddler file (TiddlyWiki's export) or a .tid file may hold
our chat bundle, TidGi templates or AI Tools conversations; a list of objects with `mapping`
is ChatGPT's conversations.json.
\*/
import { isBundle, planBundle } from './bundle';
import { isChatGptArchive, planChatGpt } from './chatgpt';
import { isConversation, planAiTools } from './ai-tools';
import { isTemplate, planTidGi } from './tidgi';
import { ImportError, MAX_IMPORT_BYTES, parseJson, type ImportPlan, type ImportTarget } from './plan';
import type { TiddlerFields } from '../wiki-port';

export function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/** Refuse a file by its size, before reading it. */
export function checkImportSize(name: string, bytes: number): void {
  if (bytes > MAX_IMPORT_BYTES) throw new ImportError(`"${name}" is ${formatSize(bytes)}: files above ${formatSize(MAX_IMPORT_BYTES)} are not imported.`);
}

/** A .tid file: `name: value` lines, a blank line, the text. */
function parseTid(text: string): TiddlerFields {
  const fields: TiddlerFields = {};
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  for (; i < lines.length && lines[i] !== ''; i++) {
    const m = /^([^:\s]+):\s?(.*)$/.exec(lines[i]!);
    if (!m) throw new ImportError(`Line ${i + 1} of the .tid file is not a "name: value" field.`);
    fields[m[1]!] = m[2]!;
  }
  fields.text = lines.slice(i + 1).join('\n');
  if (!fields.title) throw new ImportError('The .tid file has no title.');
  return fields;
}

function tiddlerList(data: unknown): TiddlerFields[] {
  if (!Array.isArray(data)) return [];
  return data.flatMap((t) => {
    if (!t || typeof t !== 'object' || typeof (t as { title?: unknown }).title !== 'string') return [];
    const out: TiddlerFields = {};
    for (const [k, v] of Object.entries(t as Record<string, unknown>))
      if (typeof v === 'string' || typeof v === 'number') out[k] = String(v);
      else if (k === 'tags' && Array.isArray(v)) out.tags = v.map((x) => (/\s/.test(String(x)) ? `[[${String(x)}]]` : String(x))).join(' ');
    return [out];
  });
}

export function planImport(name: string, text: string, target: ImportTarget, isAgent: (title: string) => boolean): ImportPlan {
  checkImportSize(name, text.length);
  const data = /\.tid$/i.test(name) ? [parseTid(text)] : parseJson(text, name);
  if (isChatGptArchive(data)) return planChatGpt(data, target);
  if (isBundle(data)) return planBundle(data, target, isAgent);
  const tiddlers = tiddlerList(data);
  if (tiddlers.some(isTemplate)) return planTidGi(tiddlers.filter(isTemplate), target);
  if (tiddlers.some(isConversation)) return planAiTools(tiddlers, target);
  throw new ImportError(
    `"${name}" is none of the formats TiddlyAgent imports: a chat exported as JSON, ChatGPT's conversations.json, TidGi agent templates or AI Tools conversations.`,
  );
}

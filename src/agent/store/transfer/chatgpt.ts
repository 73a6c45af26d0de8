/*\
Import a ChatGPT data export's `conversations.json`: an array of conversations, each with
`title`, `create_time` (seconds), `mapping` (node id → {parent, children, message}) and
`current_node`. The chat a user last saw is the path from `current_node` up to the root;
other branches are not imported. User and assistant text (`text`, and the text parts of
`multimodal_text`) become messages; everything else is counted in the report by kind.
\*/
import { chatTiddlers, freeTitle, ImportError, twDate, type ImportPlan, type ImportTarget, type PlannedMessage } from './plan';

interface Node {
  parent?: unknown;
  message?: {
    author?: { role?: unknown };
    content?: { content_type?: unknown; parts?: unknown };
    create_time?: unknown;
    metadata?: { is_visually_hidden_from_conversation?: unknown };
  } | null;
}

/** Whether parsed JSON looks like conversations.json. */
export function isChatGptArchive(data: unknown): boolean {
  const first: unknown = Array.isArray(data) ? data[0] : undefined;
  return !!first && typeof first === 'object' && 'mapping' in first;
}

function name(c: Record<string, unknown>, i: number): string {
  return typeof c.title === 'string' && c.title.trim() ? `conversation ${i + 1} ("${c.title.trim().slice(0, 60)}")` : `conversation ${i + 1}`;
}

/** The node ids from the root down to `current_node`; an ImportError for a missing node or a cycle. */
function path(mapping: Record<string, Node>, current: string, which: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let id: string | undefined = current; id !== undefined; ) {
    if (seen.has(id)) throw new ImportError(`The message tree of ${which} has a cycle at node "${id}".`);
    seen.add(id);
    const node: Node | undefined = mapping[id];
    if (!node || typeof node !== 'object') throw new ImportError(`In ${which}, the node "${id}" is named but missing from "mapping".`);
    out.push(id);
    id = typeof node.parent === 'string' ? node.parent : undefined;
  }
  return out.reverse();
}

export function planChatGpt(data: unknown, target: ImportTarget): ImportPlan {
  if (!Array.isArray(data)) throw new ImportError('conversations.json must hold a list of conversations.');
  const tiddlers = [];
  const created: string[] = [];
  const skipped = new Map<string, number>();
  const skip = (what: string) => skipped.set(what, (skipped.get(what) ?? 0) + 1);
  const used = new Set<string>();
  for (const [i, raw] of data.entries()) {
    if (!raw || typeof raw !== 'object') throw new ImportError(`Conversation ${i + 1} is not an object.`);
    const c = raw as Record<string, unknown>;
    const which = name(c, i);
    if (!c.mapping || typeof c.mapping !== 'object' || Array.isArray(c.mapping)) throw new ImportError(`${cap(which)} has no "mapping" (its message tree).`);
    if (typeof c.current_node !== 'string') throw new ImportError(`${cap(which)} has no "current_node" (its last message).`);
    const mapping = c.mapping as Record<string, Node>;
    const messages: PlannedMessage[] = [];
    for (const id of path(mapping, c.current_node, which)) {
      const m = mapping[id]!.message;
      if (!m) continue; // the root has no message
      const role = m.author?.role;
      const type = m.content?.content_type;
      if (role !== 'user' && role !== 'assistant') {
        // Empty system messages and hidden context are how every export starts: not worth a line.
        if (!(role === 'system' && isEmpty(m.content?.parts))) skip(`${typeof role === 'string' ? role : 'unknown'} messages`);
        continue;
      }
      if (type !== 'text' && type !== 'multimodal_text') {
        skip(`${typeof type === 'string' ? type : 'unknown'} content`);
        continue;
      }
      if (!Array.isArray(m.content?.parts)) throw new ImportError(`In ${which}, message "${id}" has no "parts".`);
      const texts: string[] = [];
      for (const part of m.content.parts) {
        if (typeof part === 'string') texts.push(part);
        else skip(`${partKind(part)} parts`);
      }
      const text = texts.join('\n\n').trim();
      if (!text) continue;
      const time = typeof m.create_time === 'number' && Number.isFinite(m.create_time) ? twDate(m.create_time * 1000) : undefined;
      messages.push({ role, text, created: time });
    }
    if (!messages.length) {
      skip('conversations without text');
      continue;
    }
    const title = freeTitle(typeof c.title === 'string' && c.title.trim() ? c.title : 'ChatGPT conversation', target, used);
    const createdAt = typeof c.create_time === 'number' && Number.isFinite(c.create_time) ? twDate(c.create_time * 1000) : target.now;
    tiddlers.push(...chatTiddlers(title, target.agent, target.now, messages, { created: createdAt }));
    created.push(title);
  }
  if (!created.length) throw new ImportError('conversations.json holds no conversation with user or assistant text.');
  return { format: 'chatgpt', tiddlers, created, notMapped: [...skipped].map(([what, count]) => `${count} × ${what}`) };
}

function isEmpty(parts: unknown): boolean {
  return !Array.isArray(parts) || parts.every((p) => typeof p === 'string' && !p.trim());
}

function partKind(part: unknown): string {
  const type = part && typeof part === 'object' ? (part as { content_type?: unknown }).content_type : undefined;
  return typeof type === 'string' ? type : 'unknown';
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

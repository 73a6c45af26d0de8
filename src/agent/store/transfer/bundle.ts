/*\
Import our own JSON bundle (export.ts): one chat tiddler, its messages, its images. The file
is untrusted, so nothing is copied as it stands: the chat and each message are rebuilt from
the fields a chat and a message may carry, under a free title. Left out on purpose: journals
(a roll back would write what the file says to any tiddler), pending approvals (a click
would run a call the file made up; they become errors), the chat's "allowed in this chat"
tools, heartbeat and queue, and attachments that name the wiki's own tiddlers.
\*/
import { MESSAGE_FINISHES, MESSAGE_ROLES, TOOL_STATUSES } from '../schemas';
import { hasScheme, IMAGE_CHAT_FIELD, imagePrefix, isPart } from '../chat-parts';
import { parseTitleList, stringifyTitleList, type TiddlerFields } from '../wiki-port';
import { chatTiddlers, freeTitle, ImportError, type ImportPlan, type ImportTarget, type PlannedMessage } from './plan';

/** Message fields kept as they are (each checked below where it matters). */
const MESSAGE_FIELDS = [
  'model',
  'tokens-in',
  'tokens-out',
  'reasoning',
  'agent-round',
  'agent-duration',
  'agent-finish',
  'tool-name',
  'tool-call-id',
  'tool-args',
  'tool-status',
  'tool-calls',
  'agent-compaction',
  'error-kind',
] as const;
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const TW_DATE = /^\d{14,17}$/;

function strings(value: unknown): TiddlerFields | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: TiddlerFields = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number') out[k] = String(v);
    else if (Array.isArray(v) && k === 'tags') out[k] = stringifyTitleList(v.filter((t): t is string => typeof t === 'string'));
  }
  return typeof out.title === 'string' ? out : undefined;
}

/** Whether parsed JSON looks like our bundle: tiddlers, one of them a chat whose messages are there. */
export function isBundle(data: unknown): boolean {
  if (!Array.isArray(data)) return false;
  const tiddlers = data.map(strings);
  return tiddlers.some((t) => t?.agent && !t['agent-chat'] && tiddlers.some((m) => m?.['agent-chat'] === t.title && m?.['agent-seq'] !== undefined));
}

export function planBundle(data: unknown, target: ImportTarget, isAgent: (title: string) => boolean): ImportPlan {
  if (!Array.isArray(data)) throw new ImportError('The bundle is not a list of tiddlers.');
  const tiddlers = data.map(strings).filter((t): t is TiddlerFields => !!t);
  const chats = tiddlers.filter((t) => t.agent && t['agent-chat'] === undefined);
  if (chats.length !== 1) throw new ImportError(`A chat bundle holds one chat; this one holds ${chats.length}.`);
  const old = chats[0]!;
  const notMapped: string[] = [];
  const used = new Set<string>();
  const title = freeTitle(old.title!, target, used);
  const agent = isAgent(old.agent!) ? old.agent! : target.agent;
  if (agent !== old.agent) notMapped.push(`The agent "${old.agent}" does not exist here: the chat uses "${agent}".`);

  // Images first: messages name them by their old titles.
  const images = new Map<string, TiddlerFields>();
  let n = 1;
  for (const t of tiddlers) {
    // The chat's own images only: a file can carry another chat's, under a title that starts the same.
    if (!hasScheme('images', old.title!, t.title!) || !isPart('images', old.title!, t.title!, t)) continue;
    if (!IMAGE_TYPES.includes(t.type ?? '') || !/^[A-Za-z0-9+/=\s]*$/.test(t.text ?? '')) {
      notMapped.push(`The image "${t.title}" is not a PNG, JPEG, GIF or WebP image.`);
      continue;
    }
    images.set(t.title!, { title: `${imagePrefix(title)}${n++}`, type: t.type!, text: t.text ?? '', [IMAGE_CHAT_FIELD]: title, created: target.now });
  }

  const messages = tiddlers
    .filter((t) => t['agent-chat'] === old.title && t['agent-seq'] !== undefined)
    .sort((a, b) => Number(a['agent-seq']) - Number(b['agent-seq']));
  const planned: PlannedMessage[] = [];
  let leftOutAttachments = 0;
  for (const m of messages) {
    const role = m.role as PlannedMessage['role'];
    if (!(MESSAGE_ROLES as readonly string[]).includes(role)) {
      notMapped.push(`Message ${m['agent-seq']} has the unknown role "${m.role}".`);
      continue;
    }
    const extra: TiddlerFields = {};
    for (const k of MESSAGE_FIELDS) if (typeof m[k] === 'string') extra[k] = m[k];
    if (extra['tool-status'] === 'pending') {
      extra['tool-status'] = 'error';
      notMapped.push(`Message ${m['agent-seq']} waited for approval: it is imported as not run.`);
    } else if (extra['tool-status'] && !(TOOL_STATUSES as readonly string[]).includes(extra['tool-status'])) delete extra['tool-status'];
    if (extra['agent-finish'] && !(MESSAGE_FINISHES as readonly string[]).includes(extra['agent-finish'])) delete extra['agent-finish'];
    for (const k of ['tokens-in', 'tokens-out', 'agent-round', 'agent-duration'] as const)
      if (extra[k] !== undefined && !/^\d{1,15}$/.test(extra[k])) delete extra[k];
    if (extra['tool-calls'] !== undefined && !validToolCalls(extra['tool-calls'])) delete extra['tool-calls'];
    const attachments: string[] = [];
    for (const a of parseTitleList(m.attachments)) {
      const image = images.get(a);
      if (image) attachments.push(image.title!);
      else leftOutAttachments++;
    }
    if (attachments.length) extra.attachments = stringifyTitleList(attachments);
    const text =
      role === 'tool' && extra['tool-status'] === 'error' && m['tool-status'] === 'pending'
        ? 'Not run: imported while it waited for approval.'
        : (m.text ?? '');
    planned.push({ role, text, created: TW_DATE.test(m.created ?? '') ? m.created : undefined, extra });
  }
  if (leftOutAttachments) notMapped.push(`${leftOutAttachments} attachment(s) naming tiddlers of the other wiki were left out.`);
  const journals = tiddlers.filter((t) => isPart('journals', old.title!, t.title!, t)).length;
  if (journals) notMapped.push(`${journals} turn journal(s) were left out: roll back works only in the wiki that made the changes.`);

  const chatFields: TiddlerFields = {};
  if (TW_DATE.test(old.created ?? '')) chatFields.created = old.created!;
  return { format: 'bundle', tiddlers: [...chatTiddlers(title, agent, target.now, planned, chatFields), ...images.values()], created: [title], notMapped };
}

function validToolCalls(json: string): boolean {
  try {
    const calls = JSON.parse(json) as unknown;
    return (
      Array.isArray(calls) &&
      calls.every((c) => c && typeof c === 'object' && typeof (c as { id?: unknown }).id === 'string' && typeof (c as { name?: unknown }).name === 'string')
    );
  } catch {
    return false;
  }
}

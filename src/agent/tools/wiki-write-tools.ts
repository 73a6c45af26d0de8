/*\
The write tools: wiki-create, wiki-update, wiki-edit, wiki-rename, wiki-delete. Each one
works out its change in a sandbox (so a rename relinks exactly as TiddlyWiki would), then
hands it to the write gate, which checks the existing and the resulting tiddlers as they
would land (write-gate.ts) and journals them for rollback. The same plan is what the
approval card shows. On any failure the tiddler is refreshed into the "Current tiddler"
section so the next attempt starts from its real text. They need confirmation by default.

A write lands only on the version the agent last read (context.reads): update, edit, rename
and delete are refused when the tiddler differs in any field or its text from that version,
or when the agent has not read it in this chat at all; `modified` must also be the one read.
What a write lands counts as read, so the agent can go on from its own version.

create, update and edit let the user change the proposed text on the card before allowing it
(Edit before allowing): the call then writes their version, through the same checks and
journal, and its result tells the model what the user changed.
\*/
import * as z from 'zod/mini';
import { fingerprint } from '../store/fingerprint';
import type { Reads } from '../store/read-ledger';
import type { TiddlerFields } from '../store/wiki-port';
import { defineTool, type ToolContext, type ToolDefinition, type ToolOutput } from './tool';
import type { Journal } from '../store/turn-journal';
import { changeRegions } from './text-diff';
import { errorText, WriteRefused, type Changes } from './write-gate';

const title = z.string().check(z.minLength(1), z.describe('Exact tiddler title'));
const modified = z
  .string()
  .check(z.describe('The `modified` value you last read for this tiddler (wiki-read, wiki-search or the Current tiddler section); "" if it has none'));
const fieldMap = z.optional(
  z
    .record(z.string(), z.string())
    .check(z.describe('Other fields to set, as strings; an empty string removes the field. Not: title, text, tags, modified, created')),
);
const tags = z.optional(z.array(z.string()).check(z.describe('Tags (titles), replacing the existing tags')));

const RESERVED = new Set(['title', 'text', 'tags', 'modified', 'created']);

function applyFields(base: TiddlerFields, fields: Record<string, string> | undefined): TiddlerFields {
  const out = { ...base };
  for (const [k, v] of Object.entries(fields ?? {})) {
    if (RESERVED.has(k)) throw new WriteRefused(`The field "${k}" cannot be set through "fields".`);
    if (v === '') delete out[k];
    else out[k] = v;
  }
  return out;
}

function stringifyTags(list: string[]): string {
  return list.map((t) => (/\s/.test(t) ? `[[${t}]]` : t)).join(' ');
}

/** The tiddler as the agent sees it, or a refusal that does not tell a hidden one from a missing one. */
function existing(context: ToolContext, title: string): TiddlerFields {
  const fields = context.wiki.getFields(title);
  if (!fields) throw new WriteRefused(`"${title}" does not exist.`);
  context.gate.checkTitle(title);
  return fields;
}

const REREAD = 'Its current text is in the "Current tiddler" section (or read it again with wiki-read); work from that version and its modified value.';

/**
 * Refuse a write unless the tiddler is exactly the version the agent last read: the same
 * fingerprint (every field and the text) and the `modified` the call sends back.
 */
function unchanged(context: ToolContext, { title, modified }: Base): void {
  const fields = context.wiki.getFields(title) ?? {};
  const read = context.reads.get(title);
  if (read === undefined)
    throw new WriteRefused(`You have not read "${title}" in this chat, so you would be writing over a version you have not seen. ${REREAD}`);
  const current = fields.modified ?? '';
  if (current !== modified.trim())
    throw new WriteRefused(`"${title}" changed since you read it (modified ${current || 'never'}, you sent ${modified || 'nothing'}). ${REREAD}`);
  if (fingerprint(fields) !== read)
    throw new WriteRefused(
      `"${title}" changed since you read it: its text or fields are not the version you read (its modified stayed ${current || 'empty'}). ${REREAD}`,
    );
}

/** The versions a write landed, as the agent's view shows them: they count as read. */
function landed(context: ToolContext, changes: Changes): Reads {
  const read: Reads = {};
  for (const title of Object.keys(changes)) {
    const fields = changes[title] && context.wiki.getFields(title);
    if (fields) read[title] = fingerprint(fields);
  }
  return read;
}

/** The existing tiddler a call was made from, and the `modified` it sends back. */
interface Base {
  title: string;
  modified: string;
}

/**
 * A write tool: `changes` works out the change (throwing WriteRefused for a call that cannot
 * be made), the gate checks it as it would land, and then, for a call made from an existing
 * tiddler (`base`), the version the agent read: a change the gate refuses anyway is refused
 * for that reason, which no re-reading helps. A change that cannot be worked out (a snippet
 * not found) from a version the agent has not read is refused for that, its likely cause.
 * `plan` is what the card shows, `execute` applies it and reports; targets are the changed
 * titles.
 */
function writeTool<S extends z.ZodMiniType<{ title: string }>>(tool: {
  name: string;
  description: string;
  parameters: S;
  preview: (args: z.output<S>) => string;
  changes: (args: z.output<S>, context: ToolContext) => Changes;
  base?: (args: z.output<S>) => Base;
  /** The titles the call names; default its `title`, which is also its "Current tiddler". */
  titles?: (args: z.output<S>) => string[];
  done: (args: z.output<S>, changes: Changes) => string;
  /** The user may edit the text of the call's tiddler on the card before allowing the call. */
  editable?: true;
}): ToolDefinition {
  const titles = tool.titles ?? ((args: z.output<S>) => [args.title]);
  const editable = tool.editable && ((args: z.output<S>) => args.title);
  const checked = (args: z.output<S>, context: ToolContext): { changes: Changes; journal: Journal; proposed?: string } => {
    const base = tool.base?.(args);
    if (base) existing(context, base.title);
    let changes: Changes;
    let proposed: string | undefined;
    try {
      changes = tool.changes(args, context);
      if (context.userText !== undefined) ({ changes, proposed } = withUserText(changes, editable?.(args), context.userText));
    } catch (e) {
      if (base) unchanged(context, base);
      throw e;
    }
    const journal = context.gate.plan(changes);
    if (base) unchanged(context, base);
    return { changes, journal, proposed };
  };
  return defineTool({
    name: tool.name,
    description: tool.description,
    access: 'write',
    parameters: tool.parameters,
    preview: tool.preview,
    editableText: editable,
    plan: (args, context) => checked(args, context).journal,
    targets: (args, context) => {
      try {
        return [...new Set([...titles(args), ...Object.keys(tool.changes(args, context))])];
      } catch {
        return titles(args);
      }
    },
    execute: (args, context): ToolOutput => {
      const edited = context.userText !== undefined;
      try {
        const { changes, proposed } = checked(args, context);
        context.gate.apply(changes);
        const done = tool.done(args, changes);
        return {
          content: edited ? `${done}\n\n${userEditNote(proposed ?? '', context.userText!)}` : done,
          currentTiddler: args.title,
          read: landed(context, changes),
        };
      } catch (e) {
        // The model is told whose text was refused: it may propose again, but not the user's version as its own.
        const whose = edited ? " (This was the user's version of the text: they edited your proposal before allowing it. Nothing was written.)" : '';
        return { ok: false, content: `${errorText(e)}${whose}`, currentTiddler: args.title };
      }
    },
  });
}

/** The change with the user's version of one tiddler's text in place of the agent's (Edit before allowing). */
function withUserText(changes: Changes, title: string | undefined, text: string): { changes: Changes; proposed: string } {
  const after = title === undefined ? undefined : changes[title];
  if (!after) throw new WriteRefused('The text of this call cannot be edited before allowing it.');
  return { changes: { ...changes, [title!]: { ...after, text } }, proposed: after.text ?? '' };
}

/** Places of a user's edit the tool result lists; the whole text is in the Current tiddler section anyway. */
const NOTE_CHARS = 4000;

/** What the model is told when the user changed its proposed text before allowing the write: what landed differs where. */
export function userEditNote(proposed: string, landed: string): string {
  const regions = changeRegions(proposed, landed, { context: 0, maxChars: Number.MAX_SAFE_INTEGER });
  if (!regions.length) return 'The user opened your proposed text before allowing it and left it as it was.';
  const lines = [
    `The user edited your proposed text before allowing it, so the text that landed is theirs (the Current tiddler section shows it whole); work from their version. Where it differs from your proposal (${regions.length} place${regions.length === 1 ? '' : 's'}; "-" yours, "+" theirs):`,
  ];
  let size = 0;
  for (const [i, region] of regions.entries()) {
    const block = [`@@ line ${region.line}`, ...region.removed.map((l) => `- ${l}`), ...region.added.map((l) => `+ ${l}`)].join('\n');
    if (size + block.length > NOTE_CHARS) {
      lines.push(`… and ${regions.length - i} more place${regions.length - i === 1 ? '' : 's'}.`);
      break;
    }
    lines.push(block);
    size += block.length;
  }
  return lines.join('\n');
}

export const wikiCreateTool = writeTool({
  name: 'wiki-create',
  description: 'Create a new tiddler. Fails if a tiddler with that title exists (use wiki-update or wiki-edit for those).',
  parameters: z.object({
    title,
    text: z.string().check(z.describe('The text, in TiddlyWiki wikitext')),
    tags,
    type: z.optional(z.string().check(z.describe('Content type; default text/vnd.tiddlywiki'))),
    fields: fieldMap,
  }),
  preview: (args) => `Create "${args.title}"${args.tags?.length ? ` tagged ${args.tags.join(', ')}` : ''}:\n${args.text}`,
  changes: (args, context) => {
    context.gate.checkTitle(args.title);
    if (context.wiki.getFields(args.title)) throw new WriteRefused(`"${args.title}" already exists; read it and use wiki-edit or wiki-update.`);
    const now = context.wiki.now();
    const fields = applyFields({ title: args.title, text: args.text, created: now, modified: now }, args.fields);
    if (args.tags?.length) fields.tags = stringifyTags(args.tags);
    if (args.type) fields.type = args.type;
    return { [args.title]: fields };
  },
  done: (args, changes) => `Created "${args.title}" (modified ${changes[args.title]?.modified}).`,
  editable: true,
});

export const wikiUpdateTool = writeTool({
  name: 'wiki-update',
  description: 'Replace the text and/or set tags and fields of an existing tiddler. Prefer wiki-edit for changes to part of the text.',
  parameters: z.object({
    title,
    modified,
    text: z.optional(z.string().check(z.describe('The new full text'))),
    tags,
    fields: fieldMap,
  }),
  preview: (args) => {
    const lines = [`Update "${args.title}"`];
    if (args.text !== undefined) lines.push(args.text);
    return lines.join('\n');
  },
  base: (args) => args,
  changes: (args, context) => {
    const before = existing(context, args.title);
    const fields = applyFields({ ...before, modified: context.wiki.now() }, args.fields);
    if (args.text !== undefined) fields.text = args.text;
    if (args.tags) fields.tags = stringifyTags(args.tags);
    return { [args.title]: fields };
  },
  done: (args, changes) => `Updated "${args.title}" (modified ${changes[args.title]?.modified}).`,
  editable: true,
});

export const wikiEditTool = writeTool({
  name: 'wiki-edit',
  description:
    'Change parts of a tiddler\'s text: each edit replaces one exact snippet ("find", copied from the current text, unique in it) with "replace". All edits apply together or none does.',
  parameters: z.object({
    title,
    modified,
    edits: z
      .array(z.object({ find: z.string().check(z.minLength(1), z.describe('Exact text to replace; must occur exactly once')), replace: z.string() }))
      .check(z.minLength(1), z.describe('One or more non-overlapping find/replace pairs')),
  }),
  preview: (args) => [`Edit "${args.title}"`, ...args.edits.map((e, i) => `#${i + 1} − ${e.find}\n#${i + 1} + ${e.replace}`)].join('\n'),
  base: (args) => args,
  changes: (args, context) => {
    const before = existing(context, args.title);
    return { [args.title]: { ...before, modified: context.wiki.now(), text: applyEdits(before.text ?? '', args.edits) } };
  },
  done: (args, changes) => `Edited "${args.title}": ${args.edits.length} change(s) (modified ${changes[args.title]?.modified}).`,
  editable: true,
});
/** Apply exact, unique, non-overlapping snippets; any problem refuses the whole edit. */
export function applyEdits(text: string, edits: { find: string; replace: string }[]): string {
  const spans = edits.map((edit, i) => {
    const at = text.indexOf(edit.find);
    if (at < 0) throw new WriteRefused(`Edit #${i + 1}: the snippet was not found (it must match the current text exactly). Nothing was changed.`);
    if (text.indexOf(edit.find, at + 1) >= 0)
      throw new WriteRefused(`Edit #${i + 1}: the snippet occurs more than once; include more surrounding text to make it unique. Nothing was changed.`);
    return { at, end: at + edit.find.length, replace: edit.replace, n: i + 1 };
  });
  spans.sort((a, b) => a.at - b.at);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i]!.at < spans[i - 1]!.end) throw new WriteRefused(`Edits #${spans[i - 1]!.n} and #${spans[i]!.n} overlap. Nothing was changed.`);
  }
  let out = '';
  let pos = 0;
  for (const s of spans) {
    out += text.slice(pos, s.at) + s.replace;
    pos = s.end;
  }
  return out + text.slice(pos);
}

export const wikiRenameTool = writeTool({
  name: 'wiki-rename',
  description: 'Rename a tiddler. With relink (default), tags and lists that reference it follow the new title.',
  parameters: z.object({
    title,
    modified,
    newTitle: z.string().check(z.minLength(1), z.describe('The new title')),
    relink: z._default(z.boolean(), true),
  }),
  preview: (args) => `Rename "${args.title}" → "${args.newTitle}"${args.relink ? ' (and update references)' : ''}`,
  base: (args) => args,
  titles: (args) => [args.title, args.newTitle],
  changes: (args, context) => {
    existing(context, args.title); // refuses a title that is absent or not the agent's to change
    context.gate.checkTitle(args.newTitle);
    if (context.wiki.getFields(args.newTitle)) throw new WriteRefused(`"${args.newTitle}" already exists.`);
    // Renamed in a sandbox of the agent's view: TiddlyWiki's own relinkers change exactly the
    // tags and lists they would, and only of tiddlers the agent can see.
    const sandbox = context.wiki.sandbox();
    sandbox.renameTiddler(args.title, args.newTitle, args.relink);
    const changes = sandbox.changes();
    // References in tiddlers the agent may not write (e.g. $:/StoryList) are left as they are.
    for (const [t, after] of Object.entries(changes)) if (t !== args.title && t !== args.newTitle && context.gate.refusal(t, after)) delete changes[t];
    return changes;
  },
  done: (args, changes) => {
    const references = Object.keys(changes).length - 2;
    return `Renamed "${args.title}" to "${args.newTitle}"${references > 0 ? ` and updated ${references} reference(s)` : ''}.`;
  },
});

export const wikiDeleteTool = writeTool({
  name: 'wiki-delete',
  description: 'Delete a tiddler. It can be restored by rolling back the turn.',
  parameters: z.object({ title, modified }),
  preview: (args) => `Delete "${args.title}"`,
  base: (args) => args,
  changes: (args, context) => {
    existing(context, args.title);
    return { [args.title]: null };
  },
  done: (args) => `Deleted "${args.title}". Rolling back this turn restores it.`,
});

export const WIKI_WRITE_TOOLS: ToolDefinition[] = [wikiCreateTool, wikiUpdateTool, wikiEditTool, wikiRenameTool, wikiDeleteTool];

/** Tools whose `title` names the tiddler they work on: it becomes the chat's Current tiddler, even when the call fails or is denied. */
export const CURRENT_TIDDLER_TOOLS: ReadonlySet<string> = new Set(['wiki-read', ...WIKI_WRITE_TOOLS.map((t) => t.name)]);

/*\
The write tools: wiki-create, wiki-update, wiki-edit, wiki-rename, wiki-delete. Each one
passes the write guard (visibility, agent-write-filter, drafts, the `modified` it read),
journals before- and after-images for rollback, and on any failure refreshes the tiddler
into the "Current tiddler" section so the next attempt starts from its real text. They need
confirmation by default (access: write).
\*/
import * as z from 'zod/mini';
import type { TiddlerFields } from '../store/wiki-port';
import { journaled } from './journal';
import { defineTool, type ToolContext, type ToolDefinition } from './tool';
import { checkUnchanged, checkWritable, guardedWrite, modificationFields, WriteRefused } from './write-guard';

const title = z.string().check(z.minLength(1), z.describe('Exact tiddler title'));
const modified = z.string().check(z.describe('The `modified` value you last read for this tiddler (wiki-read, wiki-search or the Current tiddler section); "" if it has none'));
const fieldMap = z.optional(
  z.record(z.string(), z.string()).check(z.describe('Other fields to set, as strings; an empty string removes the field. Not: title, text, tags, modified, created')),
);
const tags = z.optional(z.array(z.string()).check(z.describe('Tags (titles), replacing the existing tags')));

const RESERVED = new Set(['title', 'text', 'tags', 'modified', 'created', 'draft.of', 'draft.title']);

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

function write(context: ToolContext, titles: string[], change: () => void): void {
  journaled(context.wiki, context.chat, context.turn, titles, change);
}

export const wikiCreateTool = defineTool({
  name: 'wiki-create',
  description: 'Create a new tiddler. Fails if a tiddler with that title exists (use wiki-update or wiki-edit for those).',
  access: 'write',
  parameters: z.object({
    title,
    text: z.string().check(z.describe('The text, in TiddlyWiki wikitext')),
    tags,
    type: z.optional(z.string().check(z.describe('Content type; default text/vnd.tiddlywiki'))),
    fields: fieldMap,
  }),
  preview: (args) => `Create "${args.title}"${args.tags?.length ? ` tagged ${args.tags.join(', ')}` : ''}:\n${args.text}`,
  execute: (args, context) =>
    guardedWrite(args.title, () => {
      checkWritable(context, args.title);
      if (context.wiki.getFields(args.title)) throw new WriteRefused(`"${args.title}" already exists; read it and use wiki-edit or wiki-update.`);
      const now = context.wiki.now();
      const fields = applyFields({ title: args.title, text: args.text, created: now, modified: now }, args.fields);
      if (args.tags?.length) fields.tags = stringifyTags(args.tags);
      if (args.type) fields.type = args.type;
      write(context, [args.title], () => context.wiki.putTiddler(fields));
      return `Created "${args.title}" (modified ${now}).`;
    }),
});

export const wikiUpdateTool = defineTool({
  name: 'wiki-update',
  description: 'Replace the text and/or set tags and fields of an existing tiddler. Prefer wiki-edit for changes to part of the text.',
  access: 'write',
  parameters: z.object({
    title,
    modified,
    text: z.optional(z.string().check(z.describe('The new full text'))),
    tags,
    fields: fieldMap,
  }),
  preview: (args, context) => {
    const before = context.wiki.getFields(args.title) ?? {};
    const lines = [`Update "${args.title}"`];
    if (args.text !== undefined) lines.push(`text: ${before.text?.length ?? 0} → ${args.text.length} characters`, args.text);
    if (args.tags) lines.push(`tags: ${before.tags ?? ''} → ${stringifyTags(args.tags)}`);
    for (const [k, v] of Object.entries(args.fields ?? {})) lines.push(`${k}: ${before[k] ?? '(none)'} → ${v || '(removed)'}`);
    return lines.join('\n');
  },
  execute: (args, context) =>
    guardedWrite(args.title, () => {
      checkWritable(context, args.title);
      checkUnchanged(context.wiki, args.title, args.modified);
      const fields = applyFields({ ...context.wiki.getFields(args.title)!, ...modificationFields(context.wiki) }, args.fields);
      if (args.text !== undefined) fields.text = args.text;
      if (args.tags) fields.tags = stringifyTags(args.tags);
      write(context, [args.title], () => context.wiki.putTiddler(fields));
      return `Updated "${args.title}" (modified ${fields.modified}).`;
    }),
});

export const wikiEditTool = defineTool({
  name: 'wiki-edit',
  description:
    'Change parts of a tiddler\'s text: each edit replaces one exact snippet ("find", copied from the current text, unique in it) with "replace". All edits apply together or none does.',
  access: 'write',
  parameters: z.object({
    title,
    modified,
    edits: z
      .array(z.object({ find: z.string().check(z.minLength(1), z.describe('Exact text to replace; must occur exactly once')), replace: z.string() }))
      .check(z.minLength(1), z.describe('One or more non-overlapping find/replace pairs')),
  }),
  preview: (args) => [`Edit "${args.title}"`, ...args.edits.map((e, i) => `#${i + 1} − ${e.find}\n#${i + 1} + ${e.replace}`)].join('\n'),
  execute: (args, context) =>
    guardedWrite(args.title, () => {
      checkWritable(context, args.title);
      checkUnchanged(context.wiki, args.title, args.modified);
      const before = context.wiki.getFields(args.title)!;
      const text = applyEdits(before.text ?? '', args.edits);
      const fields = { ...before, ...modificationFields(context.wiki), text };
      write(context, [args.title], () => context.wiki.putTiddler(fields));
      return `Edited "${args.title}": ${args.edits.length} change(s) (modified ${fields.modified}).`;
    }),
});

/** Apply exact, unique, non-overlapping snippets; any problem refuses the whole edit. */
export function applyEdits(text: string, edits: { find: string; replace: string }[]): string {
  const spans = edits.map((edit, i) => {
    const at = text.indexOf(edit.find);
    if (at < 0) throw new WriteRefused(`Edit #${i + 1}: the snippet was not found (it must match the current text exactly). Nothing was changed.`);
    if (text.indexOf(edit.find, at + 1) >= 0) throw new WriteRefused(`Edit #${i + 1}: the snippet occurs more than once; include more surrounding text to make it unique. Nothing was changed.`);
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

export const wikiRenameTool = defineTool({
  name: 'wiki-rename',
  description: 'Rename a tiddler. With relink (default), tags and lists that reference it follow the new title.',
  access: 'write',
  parameters: z.object({
    title,
    modified,
    newTitle: z.string().check(z.minLength(1), z.describe('The new title')),
    relink: z._default(z.boolean(), true),
  }),
  preview: (args) => `Rename "${args.title}" → "${args.newTitle}"${args.relink ? ' (and update references)' : ''}`,
  execute: (args, context) =>
    guardedWrite(args.title, () => {
      checkWritable(context, args.title);
      checkWritable(context, args.newTitle);
      checkUnchanged(context.wiki, args.title, args.modified);
      if (context.wiki.getFields(args.newTitle)) throw new WriteRefused(`"${args.newTitle}" already exists.`);
      // Relinking may touch the tiddlers that tag or list the renamed one: journal them too.
      const referrers = args.relink ? context.wiki.filter('[all[tiddlers]tag<title>] [all[tiddlers]contains:list<title>]', { title: args.title }) : [];
      write(context, [args.title, args.newTitle, ...referrers], () => context.wiki.renameTiddler(args.title, args.newTitle, args.relink));
      return `Renamed "${args.title}" to "${args.newTitle}"${referrers.length ? ` and updated ${referrers.length} reference(s)` : ''}.`;
    }),
});

export const wikiDeleteTool = defineTool({
  name: 'wiki-delete',
  description: 'Delete a tiddler. It can be restored by rolling back the turn.',
  access: 'write',
  parameters: z.object({ title, modified }),
  preview: (args, context) => `Delete "${args.title}" (${context.wiki.getFields(args.title)?.text?.length ?? 0} characters of text)`,
  execute: (args, context) =>
    guardedWrite(args.title, () => {
      checkWritable(context, args.title);
      checkUnchanged(context.wiki, args.title, args.modified);
      write(context, [args.title], () => context.wiki.deleteTiddler(args.title));
      return `Deleted "${args.title}". Rolling back this turn restores it.`;
    }),
});

export const WIKI_WRITE_TOOLS: ToolDefinition[] = [wikiCreateTool, wikiUpdateTool, wikiEditTool, wikiRenameTool, wikiDeleteTool];

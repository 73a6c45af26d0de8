/*\
Active content: what in a tiddler does something when it is shown or clicked, rather than
just reading as text. The approval card and the turn diff flag it (DESIGN 8), because the
write gate lets documents through and a document can still hold a button with actions, an
external image or a script-like link that the user might then view or click.

A quick scan with regular expressions, run on every card: it errs on the side of flagging.
\*/
import type { TiddlerFields } from '../store/wiki-port';

/** Content types that are plain documents: anything else is flagged. */
const DOCUMENT_TYPES = new Set(['', 'text/vnd.tiddlywiki', 'text/plain', 'text/markdown', 'text/x-markdown', 'application/json', 'application/x-tiddler-dictionary', 'text/csv']);
/** HTML elements that load, run or submit something. */
const ACTIVE_ELEMENTS = /<(img|iframe|frame|script|object|embed|form|style|link|meta|base|svg|audio|video|source|track|a|input|button)\b/gi;
const SAFE_URL = /^(https?:|mailto:|#)/i;
/** Fields that hold data about the tiddler rather than content that is rendered. */
const QUIET_FIELDS = new Set(['title', 'tags', 'type', 'created', 'modified', 'creator', 'modifier', 'list']);

export function findActiveContent(fields: TiddlerFields): string[] {
  const flags: string[] = [];
  const type = fields.type ?? '';
  if (!DOCUMENT_TYPES.has(type)) flags.push(`content type ${type}`);
  if (fields._canonical_uri) flags.push(`content loaded from ${fields._canonical_uri}`);
  for (const [name, value] of Object.entries(fields)) {
    if (QUIET_FIELDS.has(name) || name === '_canonical_uri' || !value) continue;
    const where = name === 'text' ? '' : ` (in the field "${name}")`;
    for (const flag of scan(value)) flags.push(flag + where);
  }
  return [...new Set(flags)];
}

function scan(text: string): string[] {
  const out: string[] = [];
  const widgets = unique(text, /<\$([\w.-]+)/g).map((w) => `<$${w}>`);
  if (widgets.length) out.push(`widgets ${widgets.join(', ')}${widgets.some((w) => /button|action-|keyboard|eventcatcher|messagecatcher|droppable|dropzone|browse/.test(w)) ? ' (can run actions when clicked)' : ''}`);
  const elements = unique(text, ACTIVE_ELEMENTS).map((e) => `<${e.toLowerCase()}>`);
  if (elements.length) out.push(`HTML elements ${[...new Set(elements)].join(', ')}`);
  if (/<[a-z][^>]*\son\w+\s*=/i.test(text)) out.push('event handler attributes (on…=)');
  for (const src of unique(text, /\[img[^[\]]*\[(?:[^|\]]*\|)?([^\]]+)\]\]/g)) {
    if (/^(https?:)?\/\//i.test(src.trim()) || /^data:/i.test(src.trim())) out.push(`external image ${src.trim()}`);
  }
  for (const src of unique(text, /\bsrc\s*=\s*["']?([^"'\s>]+)/gi)) if (/^(https?:)?\/\//i.test(src)) out.push(`external resource ${src}`);
  const links = [...unique(text, /\[\[[^\]|]*\|([^\]]+)\]\]/g), ...unique(text, /\[ext\[(?:[^|\]]*\|)?([^\]]+)\]\]/g), ...unique(text, /\bhref\s*=\s*["']?([^"'\s>]+)/gi)];
  for (const target of links) {
    const t = target.trim();
    if (/^[a-z][\w+.-]*:/i.test(t) && !SAFE_URL.test(t)) out.push(`link to ${t}`);
  }
  if (/\b(javascript|vbscript):/i.test(text) && !out.some((f) => /^link to (javascript|vbscript):/i.test(f))) out.push('a script-like URL (javascript:)');
  if (/\{\{\{/.test(text)) out.push('filtered transclusion {{{…}}}');
  else if (/\{\{[^{]/.test(text)) out.push('transclusion {{…}}');
  if (/<<[^<]/.test(text)) out.push('macro or procedure call <<…>>');
  const pragmas = unique(text, /^\\(define|procedure|function|widget|import|rules|parameters)\b/gm).map((p) => `\\${p}`);
  if (pragmas.length) out.push(`pragmas ${pragmas.join(', ')}`);
  return out;
}

function unique(text: string, re: RegExp): string[] {
  return [...new Set([...text.matchAll(re)].map((m) => m[1] ?? ''))].filter(Boolean);
}

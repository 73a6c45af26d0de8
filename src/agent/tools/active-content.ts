/*\
Active content: what in a tiddler does something when it is shown or clicked, rather than
just reading as text. The approval card and the turn diff flag it (DESIGN 8), because the
write gate lets documents through and a document can still hold a button with actions, a
widget that shows a stored password, or something that loads an address when the note is
viewed (an image, a style's url(), a frame), and that address can carry what the note shows.
Each flag says in plain words what the thing does; the words around them come from the
language tiddlers.

A quick scan, run on every card: it errs on the side of flagging (tags inside attributes,
code blocks and macro calls are read too; html-tags.ts).
\*/
import type { TiddlerFields } from '../store/wiki-port';
import { decodeEntities, eventHandler, tagsIn, urlText, type Tag } from './html-tags';

/** Content types that are plain documents: anything else is flagged, and the write gate writes only these. */
export const DOCUMENT_TYPES = [
  '',
  'text/vnd.tiddlywiki',
  'text/plain',
  'text/markdown',
  'text/x-markdown',
  'application/json',
  'application/x-tiddler-dictionary',
  'text/csv',
];
/** HTML elements that load, link or submit something, listed together. */
const ACTIVE_ELEMENTS = new Set([
  'img',
  'picture',
  'svg',
  'image',
  'use',
  'audio',
  'video',
  'source',
  'track',
  'a',
  'area',
  'input',
  'button',
  'textarea',
  'select',
]);
/** Elements that do more than that, each with what it does. */
const ELEMENT_WORDS: Record<string, string> = {
  script: '<script> holds a script',
  iframe: '<iframe> shows another page inside this one',
  frame: '<frame> shows another page inside this one',
  frameset: '<frameset> shows other pages inside this one',
  portal: '<portal> shows another page inside this one',
  object: '<object> loads and runs another document or a plugin',
  embed: '<embed> loads and runs another document or a plugin',
  applet: '<applet> runs a Java program',
  style: '<style> restyles the whole page and can load addresses',
  link: '<link> loads a style sheet or another file from an address',
  base: '<base> changes where every relative link and image of the page points',
  meta: '<meta> can change how the browser treats the page',
  form: '<form> can send what is typed in it to an address',
};
const META_REFRESH = '<meta http-equiv> can reload the page or send it to another address';
const SRCDOC = '<iframe srcdoc> runs its own HTML, scripts included, inside the wiki';
const PASSWORD = '<$password> shows a password or key saved in this browser to whoever views the note';
const HTTP_REQUEST = 'sends HTTP requests (tm-http-request), which can carry a password or key saved in this browser';
/** Attributes whose value is an address the browser fetches (or sends a form to) when the element is shown or used. */
const LOADING_ATTRIBUTES = new Set([
  'src',
  'srcset',
  'imagesrcset',
  'poster',
  'background',
  'data',
  'formaction',
  'action',
  'lowsrc',
  'dynsrc',
  'codebase',
  'archive',
  'manifest',
  'ping',
  'icon',
  'source',
]);
/** Elements whose href is fetched, not followed. */
const LOADING_HREF = new Set(['link', 'base', 'image', 'use', 'feimage', 'script']);
const SAFE_URL = /^(https?:|mailto:|#)/i;
const EXTERNAL = /^\s*((https?:)?\/\/|data:|[a-z][\w+.-]*:)/i;
/** Fields that hold data about the tiddler rather than content that is rendered. */
const QUIET_FIELDS = new Set(['title', 'tags', 'type', 'created', 'modified', 'creator', 'modifier', 'list']);

export function findActiveContent(fields: TiddlerFields): string[] {
  const flags: string[] = [];
  const type = fields.type ?? '';
  if (!DOCUMENT_TYPES.includes(type)) flags.push(`content type ${type}`);
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
  const tags = tagsIn(text);
  const widgets = unique(text, /<\$([\w.-]+)/g).map((w) => `<$${w}>`);
  if (widgets.length)
    out.push(
      `widgets ${widgets.join(', ')}${widgets.some((w) => /button|action-|keyboard|eventcatcher|messagecatcher|droppable|dropzone|browse/.test(w)) ? ' (can run actions when clicked)' : ''}`,
    );
  if (
    widgets.includes('<$password>') ||
    tags.some((t) => t.name === '$genesis' && t.attributes.some((a) => a.name === '$type' && /^\$password$/i.test(a.value.trim())))
  )
    out.push(PASSWORD);
  if (/tm-http-request|password-(header|query)-|-from-store\b/i.test(text)) out.push(HTTP_REQUEST);
  out.push(...elementFlags(tags));
  if (tags.some((t) => eventHandler(t))) out.push('event handler attributes (on…=)');
  for (const src of unique(text, /\[img[^[\]]*\[(?:[^|\]]*\|)?([^\]]+)\]\]/g)) {
    if (/^(https?:)?\/\//i.test(src.trim()) || /^data:/i.test(src.trim())) out.push(`external image ${src.trim()}`);
  }
  for (const src of markdownImages(text)) out.push(`external image ${src} (Markdown)`);
  out.push(...loadingAttributes(tags), ...styleLoads(text));
  const links = [
    ...unique(text, /\[\[[^\]|]*\|([^\]]+)\]\]/g),
    ...unique(text, /\[ext\[(?:[^|\]]*\|)?([^\]]+)\]\]/g),
    ...tags.flatMap((t) => t.attributes.filter((a) => a.name === 'href' || a.name === 'xlink:href').map((a) => a.value)),
  ];
  for (const target of links) {
    const t = target.trim();
    if (/^[a-z][\w+.-]*:/i.test(t) && !SAFE_URL.test(t)) out.push(`link to ${t}`);
  }
  if (/\b(javascript|vbscript):/i.test(urlText(text)) && !out.some((f) => /^link to (javascript|vbscript):/i.test(f)))
    out.push('a script-like URL (javascript:)');
  if (/\{\{\{/.test(text)) out.push('filtered transclusion {{{…}}}');
  else if (/\{\{[^{]/.test(text)) out.push('transclusion {{…}}');
  if (/<<[^<]/.test(text)) out.push('macro or procedure call <<…>>');
  const pragmas = unique(text, /^\\(define|procedure|function|widget|import|rules|parameters)\b/gm).map((p) => `\\${p}`);
  if (pragmas.length) out.push(`pragmas ${pragmas.join(', ')}`);
  return [...new Set(out)];
}

/** The generic list of active elements, then a flag in words for each element that does more. */
function elementFlags(tags: Tag[]): string[] {
  const listed = [...new Set(tags.map((t) => t.name).filter((name) => ACTIVE_ELEMENTS.has(name)))];
  const out = listed.length ? [`HTML elements ${listed.map((e) => `<${e}>`).join(', ')}`] : [];
  for (const tag of tags) {
    if (tag.attributes.some((a) => a.name === 'srcdoc')) out.push(SRCDOC);
    else if (tag.name === 'meta' && tag.attributes.some((a) => a.name === 'http-equiv')) out.push(META_REFRESH);
    else if (ELEMENT_WORDS[tag.name]) out.push(ELEMENT_WORDS[tag.name]!);
  }
  return out;
}

/** What the attributes of the tags load: each address, or that one is worked out when the note is shown. */
function loadingAttributes(tags: Tag[]): string[] {
  const out: string[] = [];
  for (const tag of tags) {
    for (const a of tag.attributes) {
      const loads = LOADING_ATTRIBUTES.has(a.name) || (LOADING_HREF.has(tag.name) && (a.name === 'href' || a.name === 'xlink:href'));
      if (!loads || !a.value.trim()) continue;
      if (a.dynamic) {
        out.push(`loads an address worked out when shown (${a.name}=…)`);
        continue;
      }
      // A srcset lists "address width" pairs, separated by commas.
      const addresses = a.name.endsWith('srcset') ? a.value.split(/,\s+|,(?=\S+\s)/).map((c) => c.trim().split(/\s+/)[0] ?? '') : [a.value.trim()];
      for (const address of addresses) if (EXTERNAL.test(address)) out.push(`loads ${address} when shown (${a.name})`);
    }
  }
  return out;
}

/**
 * Addresses a style loads: CSS url(), image-set() and @import, wherever a style can stand (a
 * style or style.* attribute, an @@…@@ run, a <style> block). CSS escapes are decoded first.
 */
function styleLoads(text: string): string[] {
  const css = decodeEntities(text)
    .replace(/\\([0-9a-f]{1,6})\s?/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16) || 0xfffd))
    .replace(/\\(.)/g, '$1');
  const out: string[] = [];
  for (const m of css.matchAll(/\burl\(\s*(["']?)([^"')]*)\1\s*\)/gi)) {
    const address = m[2]!.trim();
    if (address && !address.startsWith('#')) out.push(`a style loads ${address} when shown (CSS url())`);
  }
  for (const m of css.matchAll(/@import\s+(?:url\(\s*)?["']?([^"');\s]+)/gi)) out.push(`a style sheet imports ${m[1]} (CSS @import)`);
  for (const set of css.matchAll(/image-set\(([^)]*)\)/gi)) {
    for (const m of set[1]!.matchAll(/["']([^"']+)["']/g)) out.push(`a style loads ${m[1]!.trim()} when shown (CSS image-set())`);
  }
  return out;
}

/** External addresses of Markdown images: ![alt](address) and ![alt][ref] with [ref]: address. */
function markdownImages(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/!\[[^\]]*\]\(\s*<?([^)\s>]+)/g)) out.push(m[1]!);
  const definitions = new Map<string, string>();
  for (const m of text.matchAll(/^[ \t]{0,3}\[([^\]]+)\]:[ \t]*<?([^\s>]+)/gm)) definitions.set(m[1]!.trim().toLowerCase(), m[2]!);
  for (const m of text.matchAll(/!\[([^\]]*)\](?:\[([^\]]*)\])?(?!\()/g)) {
    const address = definitions.get((m[2] || m[1] || '').trim().toLowerCase());
    if (address) out.push(address);
  }
  return [...new Set(out.filter((a) => EXTERNAL.test(a)))];
}

function unique(text: string, re: RegExp): string[] {
  return [...new Set([...text.matchAll(re)].map((m) => m[1] ?? ''))].filter(Boolean);
}

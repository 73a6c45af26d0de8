/*\
Images pasted (Ctrl+V of a screenshot) or dropped onto the composer become attachments the
way an image tiddler attached with `@` is: each is saved as an ordinary image tiddler (its
bytes base64 in `text`, as TiddlyWiki's own import keeps images) and listed in the message's
`attachments`, so the engine sends it to a model that takes images and refuses the turn,
saying why, for one that does not (engine/images.ts).
Only PNG, JPEG, GIF and WebP up to tools/images.ts's MAX_IMAGE_BYTES are taken, their bytes
checked as every image is; anything else is refused here with a line saying why, and nothing
is saved. A paste that carries text (a spreadsheet's cells come with a picture of them) stays
a text paste; a dropped file that is no such image is refused with its reason, not imported. A dropped file keeps its name as the title; a pasted one is named "Pasted image"
and the time. A PDF (up to MAX_PDF_BYTES, starting as a PDF does) is saved the same way, as
an application/pdf tiddler, and attached: the agent reads its text with wiki-read, page by page
(tools/documents.ts). In the server edition the server reads the attachments from its own store, so
a send waits until the page has saved the new tiddlers (whenSaved).
\*/
import { checkImage, IMAGE_TYPES, MAX_IMAGE_BYTES, sizeText } from '../tools/images';

/** The files a paste or a drop carries (none when a paste carries text: it stays a text paste). */
export function filesOf(data: DataTransfer | null | undefined, paste: boolean): File[] {
  if (!data) return [];
  if (paste && data.getData('text/plain').trim()) return [];
  return [...data.files];
}

/** Whether a drag carries files (so the composer takes the drop rather than the text area). */
export function carriesFiles(data: DataTransfer | null | undefined): boolean {
  return !!data && [...data.types].includes('Files');
}

/** The images this page saved: a send waits only for these (whenSaved). */
const saved = new Set<string>();

export interface ImageHost {
  wiki: {
    addTiddler(fields: Record<string, unknown>): void;
    generateNewTitle(base: string, options: { prefix?: string }): string;
    getCreationFields(): Record<string, unknown>;
    getModificationFields(): Record<string, unknown>;
  };
  lingo(key: string): string;
  notify(text: string): void;
  now(): Date;
}

/** Save each image as a tiddler; the titles saved. What is refused is said in one line. */
export async function saveImages(files: File[], host: ImageHost): Promise<string[]> {
  const titles: string[] = [];
  const problems: string[] = [];
  for (const [i, file] of files.entries()) {
    const name = file.name || `${host.lingo('Composer/PastedImage')} ${i + 1}`;
    if (isPdfFile(file)) {
      const pdf = await savePdf(file, name, host);
      if ('problem' in pdf) problems.push(pdf.problem);
      else titles.push(pdf.title);
      continue;
    }
    if (!(IMAGE_TYPES as readonly string[]).includes(file.type)) {
      problems.push(host.lingo('Composer/FileNotSupported').replace('$name$', name));
      continue;
    }
    if (file.size > MAX_IMAGE_BYTES) {
      problems.push(
        host.lingo('Composer/ImageTooBig').replace('$name$', name).replace('$size$', sizeText(file.size)).replace('$max$', sizeText(MAX_IMAGE_BYTES)),
      );
      continue;
    }
    const checked = checkImage(toBase64(new Uint8Array(await file.arrayBuffer())));
    if ('problem' in checked) {
      problems.push(host.lingo('Composer/ImageNotSupported').replace('$name$', name));
      continue;
    }
    const title = host.wiki.generateNewTitle(imageTitle(file, checked.image.mediaType, host), {});
    host.wiki.addTiddler({
      ...host.wiki.getCreationFields(),
      ...host.wiki.getModificationFields(),
      title,
      type: checked.image.mediaType,
      text: checked.image.data,
    });
    titles.push(title);
    saved.add(title);
  }
  const attached = titles.length ? [host.lingo('Composer/ImageAttached').replace('$titles$', titles.map((t) => `“${t}”`).join(', '))] : [];
  if (problems.length || attached.length) host.notify([...attached, ...problems].join(' '));
  return titles;
}

/** The largest PDF taken (its base64 is kept in the wiki, as TiddlyWiki's own import keeps it). */
export const MAX_PDF_BYTES = 20 * 1024 * 1024;
/** tools/documents.ts's PDF_TYPE, not imported: that module (and the chunking it uses) stays out of the page. */
const PDF_TYPE = 'application/pdf';

const isPdfFile = (file: File) => file.type === PDF_TYPE || /\.pdf$/i.test(file.name);

/**
 * A PDF, saved as TiddlyWiki's import saves one (type application/pdf, base64): attached, its
 * text is read by wiki-read page by page (tools/documents.ts). Only a file that starts as a PDF does.
 */
async function savePdf(file: File, name: string, host: ImageHost): Promise<{ title: string } | { problem: string }> {
  if (file.size > MAX_PDF_BYTES)
    return {
      problem: host.lingo('Composer/PdfTooBig').replace('$name$', name).replace('$size$', sizeText(file.size)).replace('$max$', sizeText(MAX_PDF_BYTES)),
    };
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (String.fromCharCode(...bytes.subarray(0, 5)) !== '%PDF-') return { problem: host.lingo('Composer/FileNotSupported').replace('$name$', name) };
  const title = host.wiki.generateNewTitle(imageTitle(file, PDF_TYPE, host), {});
  host.wiki.addTiddler({ ...host.wiki.getCreationFields(), ...host.wiki.getModificationFields(), title, type: PDF_TYPE, text: toBase64(bytes) });
  saved.add(title);
  return { title };
}

/**
 * A dropped file's own name, made an ordinary title (never a system one such as `$:/ai/…`, which
 * the agent could not see; none of the characters links and filters use); a pasted one
 * (browsers call every clipboard image "image.png") gets "Pasted image <time>".
 */
function imageTitle(file: File, mediaType: string, host: ImageHost): string {
  const name = file.name
    .replace(/[[\]{}|]/g, '')
    .replace(/^(\s*\$:\/)+/, '')
    .trim();
  if (name && !/^image\.(png|jpe?g|gif|webp)$/i.test(name)) return name;
  if (mediaType === PDF_TYPE) return `${host.lingo('Composer/PastedPdf')}.pdf`;
  const d = host.now();
  const two = (n: number) => String(n).padStart(2, '0');
  const stamp = `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}.${two(d.getMinutes())}.${two(d.getSeconds())}`;
  return `${host.lingo('Composer/PastedImage')} ${stamp}.${mediaType.slice('image/'.length).replace('jpeg', 'jpg')}`;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export interface SyncerLike {
  tiddlerInfo: Record<string, { changeCount: number } | undefined>;
}

/**
 * Resolves once the browser's syncer has saved those of `titles` that this page pasted or
 * dropped (at once without a syncer); rejects after `timeoutMs`. The syncer saves one tiddler
 * at a time and tells nobody when it has: so this looks again every 200 ms.
 */
export function whenSaved(
  wiki: { getChangeCount(title: string): number; tiddlerExists(title: string): boolean },
  syncer: SyncerLike | undefined,
  titles: string[],
  /** The error's words; `$titles$` is replaced by the titles not saved. */
  notSaved: string,
  timeoutMs = 60_000,
): Promise<void> {
  const unsaved = () => titles.filter((t) => saved.has(t) && wiki.tiddlerExists(t) && (syncer!.tiddlerInfo[t]?.changeCount ?? -1) < wiki.getChangeCount(t));
  if (!syncer || !unsaved().length) return Promise.resolve();
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const look = () => {
      const left = unsaved();
      if (!left.length) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error(notSaved.replace('$titles$', left.map((t) => `“${t}”`).join(', '))));
      else setTimeout(look, 200);
    };
    look();
  });
}

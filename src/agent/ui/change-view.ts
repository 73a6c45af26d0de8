/*\
What a change does, changes first: the view the approval card (what a call would change) and
the turn's "N tiddlers changed" (what a turn changed) share. Per tiddler: its title and what
happens to it, the active content it would carry (tools/active-content.ts), the fields that
change, and its text's changed places with a little context (tools/text-diff.ts), one at a
time with Previous and Next; the whole text one click away. A new tiddler shows its text, a
deleted one says so.

Plain DOM, no widgets and no box that scrolls inside the card: a place costs a few elements
whatever the length of the text, and the whole text is built only when asked for.
\*/
import type { Journal } from '../store/turn-journal';
import type { Piece, Region } from '../tools/text-diff';
import { el, type ChatContext } from './chat-context';
import { diff } from './library';

type Fields = Record<string, string>;

/** Not what the user decides about: the text (shown on its own), the dates a write stamps, the server's sync bookkeeping. */
const NOT_FIELDS = new Set(['title', 'text', 'created', 'modified', 'revision', 'bag']);
const WIKITEXT = 'text/vnd.tiddlywiki';

/** The fields whose value changes (a missing type is wikitext's), with both values ('' for absent). */
export function changedFields(before: Fields | null, after: Fields | null): { name: string; before: string; after: string }[] {
  const value = (fields: Fields | null, name: string) => (name === 'type' ? fields?.type || WIKITEXT : (fields?.[name] ?? ''));
  return [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])]
    .filter((name) => !NOT_FIELDS.has(name))
    .map((name) => ({ name, before: value(before, name), after: value(after, name) }))
    .filter((f) => f.before !== f.after);
}

/** Pieces of text into `into`: taken out as <del>, put in as <ins>; a changed line break shows as ↵. */
function renderPieces(doc: Document, pieces: Piece[], into: HTMLElement): void {
  for (const piece of pieces) {
    if (piece.kind === 'same') {
      into.appendChild(doc.createTextNode(piece.text));
      continue;
    }
    const text = piece.text.trim() ? piece.text : piece.text.replace(/\n/g, '↵\n');
    into.appendChild(el(doc, piece.kind === 'added' ? 'ins' : 'del', `tc-ai-diff-${piece.kind}`, text));
  }
}

/** What the view needs of its host: a chat (ChatContext), or the editor's Ask AI panel. */
export type ChangeViewContext = Pick<ChatContext, 'document' | 'lingo' | 'navigate'>;

/** Every tiddler of `journal`, changes first, into `into`. */
export function renderChanges(ctx: ChangeViewContext, journal: Journal, into: HTMLElement, mode: 'turn' | 'approval'): void {
  for (const [title, { before, after }] of Object.entries(journal)) into.appendChild(renderTiddler(ctx, title, before, after, mode));
}

function renderTiddler(ctx: ChangeViewContext, title: string, before: Fields | null, after: Fields | null, mode: 'turn' | 'approval'): HTMLElement {
  const doc = ctx.document;
  const state = !before ? 'created' : !after ? 'deleted' : 'changed';
  const box = el(doc, 'div', `tc-ai-diff tc-ai-diff-${state}`);
  box.setAttribute('data-tiddler', title);
  const head = el(doc, 'div', 'tc-ai-diff-title');
  const link = el(doc, 'a', 'tc-tiddlylink', title);
  link.setAttribute('href', `#${encodeURIComponent(title)}`);
  link.addEventListener?.('click', (event: Event) => {
    event.preventDefault();
    ctx.navigate(title);
  });
  head.appendChild(link);
  head.appendChild(doc.createTextNode(` · ${ctx.lingo(`Turn/State/${state}`)}`));
  box.appendChild(head);

  const flags = after ? diff().findActiveContent(after) : [];
  if (flags.length) {
    const active = el(doc, 'div', 'tc-ai-active-content');
    active.appendChild(el(doc, 'strong', '', ctx.lingo('Changes/Active')));
    const list = el(doc, 'ul', '');
    for (const flag of flags) list.appendChild(el(doc, 'li', '', flag));
    active.appendChild(list);
    box.appendChild(active);
  }

  const fields = state === 'deleted' ? [] : changedFields(before, after);
  if (fields.length) {
    const table = el(doc, 'div', 'tc-ai-diff-fields');
    for (const field of fields) {
      const row = el(doc, 'div', 'tc-ai-diff-field');
      row.appendChild(el(doc, 'span', 'tc-ai-diff-field-name', field.name));
      const value = el(doc, 'span', 'tc-ai-diff-field-value');
      renderPieces(doc, diff().diffWords(field.before, field.after), value);
      row.appendChild(value);
      table.appendChild(row);
    }
    box.appendChild(table);
  }

  const [old, now] = [before?.text ?? '', after?.text ?? ''];
  if (state === 'deleted') box.appendChild(el(doc, 'div', 'tc-ai-diff-gone', ctx.lingo(`Changes/Deleted/${mode}`)));
  if (old !== now) renderText(ctx, box, state, diff().changeRegions(old, now), () => diff().diffText(old, now));
  return box;
}

/** Set or clear a boolean attribute (the fake DOM of a static render has no properties for them). */
function flag(element: HTMLElement, name: 'hidden' | 'disabled', on: boolean): void {
  if (on) element.setAttribute(name, '');
  else element.removeAttribute(name);
}

/**
 * The text's changed places, one at a time: where it is ("Change 2 of 5 · line 40"), Previous
 * and Next, and "Full text", which shows the whole text with every change marked (`full`,
 * built on the first click). A new tiddler's text reads as plain text, not as one long
 * insertion; a deleted one's is struck through, under the line that says it goes.
 */
function renderText(ctx: ChangeViewContext, box: HTMLElement, state: 'created' | 'deleted' | 'changed', regions: Region[], full: () => Piece[]): void {
  const doc = ctx.document;
  const nav = el(doc, 'div', 'tc-ai-diff-nav');
  const where = el(doc, 'span', 'tc-ai-diff-where');
  const text = el(doc, 'div', `tc-ai-diff-text tc-ai-diff-text-${state}`);
  const button = (action: string, onClick: () => void) => {
    const b = el(doc, 'button', `tc-ai-diff-${action}`);
    b.setAttribute('type', 'button');
    b.setAttribute('data-ai-action', `diff-${action}`);
    b.addEventListener?.('click', onClick);
    return b;
  };
  let index = 0;
  let whole = false;
  const prev = button('previous', () => show(index - 1));
  const next = button('next', () => show(index + 1));
  const toggle = button('full', () => {
    whole = !whole;
    show(index);
  });
  prev.textContent = ctx.lingo('Changes/Previous');
  next.textContent = ctx.lingo('Changes/Next');
  const plain = (pieces: Piece[]) => (state === 'created' ? pieces.map((p) => ({ ...p, kind: 'same' as const })) : pieces);
  const show = (i: number) => {
    index = Math.max(0, Math.min(regions.length - 1, i));
    const region = regions[index]!;
    text.textContent = '';
    toggle.textContent = ctx.lingo(whole ? 'Changes/Only' : 'Changes/Full');
    toggle.setAttribute('aria-pressed', String(whole));
    flag(prev, 'hidden', whole || regions.length < 2);
    flag(next, 'hidden', whole || regions.length < 2);
    flag(prev, 'disabled', index === 0);
    flag(next, 'disabled', index === regions.length - 1);
    where.textContent =
      state !== 'changed'
        ? ctx.lingo(`Changes/Text/${state}`)
        : whole
          ? ctx.lingo(regions.length === 1 ? 'Changes/CountOne' : 'Changes/Count').replace('$count$', String(regions.length))
          : ctx
              .lingo(regions.length === 1 ? 'Changes/WhereOne' : 'Changes/Where')
              .replace('$n$', String(index + 1))
              .replace('$count$', String(regions.length))
              .replace('$line$', String(region.line));
    text.setAttribute('data-line', String(region.line));
    renderPieces(doc, plain(whole ? full() : region.pieces), text);
    if (!whole && region.truncated) text.appendChild(el(doc, 'span', 'tc-ai-diff-more', ctx.lingo('Changes/More')));
  };
  nav.appendChild(where);
  nav.appendChild(prev);
  nav.appendChild(next);
  // "Full text" wherever it shows more than the places do: context beyond them, or what a cut place leaves out.
  if (state === 'changed' || regions.some((r) => r.truncated)) nav.appendChild(toggle);
  box.appendChild(nav);
  box.appendChild(text);
  show(0);
}

/*\
A reply's sources under it (store/sources.ts): a chip per tiddler (a real link; a click opens
the tiddler), cited ones first, a cited title the turn never read marked "unverified"; a cited
PDF's chip names the pages cited ("Report.pdf, p. 7"), a page the PDF lacks marked. When
a source it relies on (watchedSources) changed or was deleted since, a line says "Sources
changed since" with a "Check again" button that sends a message asking the agent to read
them again and say what changed. The message list checks a reply when it renders it and
then only when a wiki change touches one of its sources (source-watch.ts).
\*/
import type { Tiddler } from 'tiddlywiki';
import { fingerprint } from '../store/fingerprint';
import { pagesLabel, parseSources, watchedSources, type Source } from '../store/sources';
import { isHiddenFromAgent } from '../tools/visibility';
import { actionButton, el, ShownWhen, type ChatContext } from './chat-context';

/** Uncited sources shown as chips; the rest are counted. */
export const MAX_READ_CHIPS = 8;

export class ReplySources {
  readonly element: HTMLElement;
  /** The titles whose change can mark the reply. */
  readonly watched: string[];
  private readonly sources: Source[];
  private readonly chips = new Map<string, HTMLElement>();
  private readonly line: ShownWhen;
  private readonly lineText: HTMLElement;
  private changedTitles: string[] = [];
  private readonly again: HTMLButtonElement;
  /** The changed titles Check again last asked about: the button stays off until others change (no paid turn twice for one change). */
  private askedAbout = '';

  /** The sources of a reply's fields, or undefined when it records none. */
  static of(ctx: ChatContext, fields: Record<string, unknown>): ReplySources | undefined {
    // Never a hidden tiddler, even in a hand-edited or imported message.
    const sources = parseSources(fields['agent-sources']).filter((s) => !isHiddenFromAgent(s.title, ctx.wiki.getTiddler(s.title)?.fields));
    return sources.length ? new ReplySources(ctx, sources) : undefined;
  }

  private constructor(
    private readonly ctx: ChatContext,
    sources: Source[],
  ) {
    const doc = ctx.document;
    this.sources = sources;
    this.watched = watchedSources(sources).map((s) => s.title);
    this.element = el(doc, 'div', 'tc-ai-message-sources');
    const chips = el(doc, 'div', 'tc-ai-message-chips tc-ai-sources-chips');
    chips.appendChild(el(doc, 'span', 'tc-ai-sources-label', ctx.lingo('Sources/Label')));
    // A search shows the agent many tiddlers: past a few, the uncited ones are counted, not listed.
    let read = 0;
    for (const source of sources) if (source.cited || read++ < MAX_READ_CHIPS) chips.appendChild(this.chip(source));
    if (read > MAX_READ_CHIPS)
      chips.appendChild(el(doc, 'span', 'tc-ai-sources-more', ctx.lingo('Sources/More').replace('$count$', String(read - MAX_READ_CHIPS))));
    this.element.appendChild(chips);
    const line = el(doc, 'div', 'tc-ai-sources-changed');
    this.lineText = el(doc, 'span', 'tc-ai-sources-changed-text');
    line.appendChild(this.lineText);
    const again = actionButton(doc, 'tc-btn-invisible tc-ai-sources-check', ctx.lingo('Sources/CheckAgain'), 'check-sources');
    again.setAttribute('type', 'button');
    again.addEventListener?.('click', () => this.checkAgain());
    line.appendChild(again);
    this.again = again;
    this.element.appendChild(line);
    this.line = new ShownWhen(line);
    this.line.changed('');
    this.check();
  }

  /** Compare the watched sources with the wiki now; the line and the chips follow. */
  check(): void {
    const wiki = this.ctx.wiki;
    const changed = this.sources.filter((s) => s.fingerprint && this.watched.includes(s.title) && versionOf(wiki.getTiddler(s.title)) !== s.fingerprint);
    this.changedTitles = changed.map((s) => s.title);
    for (const [title, chip] of this.chips) markChanged(chip, this.changedTitles.includes(title));
    if (this.line.changed(this.changedTitles.join('\n'))) this.lineText.textContent = `${this.ctx.lingo('Sources/Changed')} ${this.changedTitles.join(', ')}`;
    this.again.disabled = this.askedAbout === this.changedTitles.join('\n');
  }

  get stale(): boolean {
    return this.changedTitles.length > 0;
  }

  private chip(source: Source): HTMLElement {
    const doc = this.ctx.document;
    const unverified = source.cited && !source.fingerprint;
    const kind = unverified ? 'unverified' : source.cited ? 'cited' : 'read';
    const label = source.pages
      ? this.ctx
          .lingo('Sources/Pages')
          .replace('$pages$', pagesLabel(source.pages))
          .replace('$title$', () => source.title)
      : source.title;
    const chip = el(doc, 'a', `tc-ai-chip tc-tiddlylink tc-ai-source tc-ai-source-${kind}`, label);
    chip.setAttribute('data-title', source.title);
    chip.setAttribute('href', `#${encodeURIComponent(source.title)}`);
    chip.setAttribute('title', this.ctx.lingo(`Sources/Hint/${kind}`));
    if (unverified) chip.appendChild(el(doc, 'span', 'tc-ai-source-note', ` ${this.ctx.lingo('Sources/Unverified')}`));
    if (source.unverifiedPages) {
      const note = this.ctx.lingo('Sources/PagesUnverified').replace('$pages$', pagesLabel(source.unverifiedPages));
      chip.appendChild(el(doc, 'span', 'tc-ai-source-note tc-ai-source-page-unverified', ` ${note}`));
      chip.setAttribute('title', this.ctx.lingo('Sources/Hint/pagesUnverified'));
    }
    chip.addEventListener?.('click', (event: Event) => {
      event.preventDefault();
      this.ctx.navigate(source.title);
    });
    this.chips.set(source.title, chip);
    return chip;
  }

  /** Ask the agent to read the changed sources again and say what changed. */
  private checkAgain(): void {
    const asked = this.changedTitles.join('\n');
    if (!asked || asked === this.askedAbout) return;
    this.askedAbout = asked;
    this.again.disabled = true;
    const text = checkAgainMessage(this.ctx.lingo('Sources/CheckAgainMessage'), this.changedTitles);
    void this.ctx.request(this.ctx.runner().submit({ kind: 'send', chat: this.ctx.chat, text, attachments: [] }));
    this.ctx.followReply();
  }
}

/**
 * Check again's message: the titles are the wiki's words inside the user's own message, so
 * each is quoted data on one line (a title cannot add lines or pose as the user's request),
 * and put in whole (`$'` in a title is no replacement pattern).
 */
export function checkAgainMessage(template: string, titles: readonly string[]): string {
  const quoted = titles.map((t) => JSON.stringify(t.replace(/[\p{Cc}\u2028\u2029]+/gu, ' '))).join(', ');
  return template.replace('$titles$', () => quoted);
}

/** Add or take away the "changed" class (by className: TiddlyWiki's fake DOM in Node has no classList). */
function markChanged(chip: HTMLElement, changed: boolean): void {
  const classes = chip.className.split(' ').filter((c) => c && c !== 'tc-ai-source-changed');
  if (changed) classes.push('tc-ai-source-changed');
  chip.className = classes.join(' ');
}

/** Fingerprints of tiddler objects (TiddlyWiki never changes one: an edit makes a new object), each worked out once. */
const versions = new WeakMap<Tiddler, string>();

/** The fingerprint of the tiddler as it is now; undefined when it is gone. */
function versionOf(tiddler: Tiddler | undefined): string | undefined {
  if (!tiddler) return undefined;
  let version = versions.get(tiddler);
  if (version === undefined) {
    version = fingerprint(tiddler.getFieldStrings() as Record<string, string>);
    versions.set(tiddler, version);
  }
  return version;
}

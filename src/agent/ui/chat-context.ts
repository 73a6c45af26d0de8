/*\
What every part of the chat view (message list, message views, cards, turn actions, stream
view, status bar) gets from the <$ai-chat> widget: the chat and its wiki, the document, UI
strings, requests to the runner, and rendering under the widget, so that links in a reply
navigate and refresh like any other. No part writes a tiddler: every action is a request to
the runner, and a refused request shows its message in the status line.
\*/
import type { IChangedTiddlers, IParseTreeNode, Widget, Wiki } from 'tiddlywiki';
import type { ChatRunner } from '$:/plugins/tiddlyagent/agent/page.js';

export interface ChatContext {
  readonly chat: string;
  readonly wiki: Wiki;
  readonly document: Document;
  /** In Node the chat renders once, statically: no runner, no action bars, no deferred work. */
  readonly browser: boolean;
  lingo(key: string): string;
  runner(): ChatRunner;
  /** Make a request to the runner; a refusal shows in the status line and resolves to undefined. */
  request<T>(promise: Promise<T>): Promise<T | undefined>;
  /** Say what a request did, under the messages (announced), until the next request. */
  notify(text: string): void;
  navigate(title: string): void;
  /** Titles a filter selects, with these variables. */
  filter(filter: string, variables: Record<string, string>): string[];
  /** Render a parse tree with TiddlyWiki's widgets, under the chat widget, into `into`. */
  renderTree(tree: IParseTreeNode[], into: HTMLElement): RenderedTree;
  /** Render model output as wikitext under the safe rule set (ui/safe-render.ts). */
  renderWikitext(source: string, into: HTMLElement): RenderedTree;
  /** The user asked for a new reply (Retry, Edit and resend): the list and the window follow it, as after a send. */
  followReply(): void;
  /** A reply's cost for its meta line (ui/cost-view.ts); undefined when it carries no token counts. */
  replyCost?(fields: Record<string, unknown>): { text: string; title: string } | undefined;
}

/**
 * Widgets rendered from a parse tree. What they show depends on other tiddlers only through
 * their links (a link looks different when its target is missing), so a wiki change
 * refreshes them only when it touches a link target: a refresh of a long chat then costs
 * nothing for the messages it cannot affect.
 */
export class RenderedTree {
  private readonly links = new Set<string>();
  /** A link without a literal target depends on variables: refresh on every change. */
  private always = false;

  constructor(
    private readonly widget: Widget,
    tree: IParseTreeNode[],
  ) {
    this.collectLinks(tree);
  }

  refresh(changed: IChangedTiddlers): void {
    if (this.always) {
      this.widget.refresh(changed);
      return;
    }
    for (const title in changed) {
      if (this.links.has(title)) {
        this.widget.refresh(changed);
        return;
      }
    }
  }

  remove(): void {
    this.widget.removeChildDomNodes();
  }

  private collectLinks(nodes: IParseTreeNode[]): void {
    for (const node of nodes) {
      const { type, attributes, children } = node as IParseTreeNode & {
        attributes?: Record<string, { type?: string; value?: unknown }>;
        children?: IParseTreeNode[];
      };
      if (type === 'link') {
        const to = attributes?.to;
        if (to?.type === 'string' && typeof to.value === 'string') this.links.add(to.value);
        else this.always = true;
      } else if (type !== 'text' && type !== 'element' && type !== 'entity' && type !== 'codeblock' && type !== 'diff-text' && type !== 'void') {
        this.always = true;
      }
      if (children) this.collectLinks(children);
    }
  }
}

/** An element with a class and, optionally, text. */
export function el(doc: Document, tag: string, className: string, content?: string): HTMLElement {
  const element = doc.createElement(tag);
  if (className) element.className = className;
  if (content !== undefined) element.textContent = content;
  return element;
}

/**
 * An element shown only while it has something to show, drawn again only when that changes:
 * `what` says it as a key ('' for nothing).
 */
export class ShownWhen {
  private shown?: string;

  constructor(readonly element: HTMLElement) {}

  /** Shows or hides the element for `what`; true when it is shown with something new, to be drawn now. */
  changed(what: string): boolean {
    if (what === this.shown) return false;
    this.shown = what;
    if (!what) {
      this.element.setAttribute('hidden', '');
      return false;
    }
    this.element.removeAttribute('hidden');
    return true;
  }
}

/** A button of the chat's cards: its class, label and `data-ai-action` (what tests and styles find it by). */
export function actionButton(doc: Document, className: string, label: string, action: string): HTMLButtonElement {
  const button = el(doc, 'button', className, label) as HTMLButtonElement;
  button.setAttribute('data-ai-action', action);
  return button;
}

/** A card's row of two buttons, its confirming one and Cancel (each an actionButton: class, label, action). */
export function confirmRow(
  ctx: Pick<ChatContext, 'document' | 'lingo'>,
  confirm: { className: string; label: string; action: string },
  cancel: { className: string; action: string },
): { row: HTMLElement; confirm: HTMLButtonElement; cancel: HTMLButtonElement } {
  const row = el(ctx.document, 'div', 'tc-ai-card-buttons');
  const buttons = {
    row,
    confirm: actionButton(ctx.document, confirm.className, confirm.label, confirm.action),
    cancel: actionButton(ctx.document, cancel.className, ctx.lingo('Question/Cancel'), cancel.action),
  };
  row.appendChild(buttons.confirm);
  row.appendChild(buttons.cancel);
  return buttons;
}

/**
 * A token count with thousands separators, as toLocaleString('en') writes it, without Intl:
 * a page's first use of Intl loads its locale data (about 15 ms), which would land on the
 * first chat shown with a meter.
 */
export const formatNumber = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

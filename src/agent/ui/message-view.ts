/*\
One message of the chat as DOM: its meta line (role, model, cost, "incomplete"), its reasoning,
its body and its attachment chips. A reply renders as wikitext under the safe rule set; a
user's or an error message as plain text; a tool call as a compact card, or, while it waits
for the user, as an approval or question card (cards.ts). A view belongs to one version of
its tiddler: when the tiddler changes, the message list renders a new view.
\*/
import type { IChangedTiddlers, Tiddler } from 'tiddlywiki';
import { el, type ChatContext, type RenderedTree } from './chat-context';
import { editableOf, renderApproval, renderQuestion, toolDetails } from './cards';

/** Replies longer than this (characters) show as plain text, not formatted wikitext. */
export const LARGE_REPLY = 500_000;

/** A bar a view carries (turn-actions.ts, message-actions.ts); its key says what it shows. */
export interface AttachedBar {
  element: HTMLElement;
  key: string;
  remove(): void;
}

export class MessageView {
  readonly element: HTMLElement;
  private body?: RenderedTree;
  private readonly cost?: HTMLElement;
  bar?: AttachedBar;
  /** The message's own bar (message-actions.ts): Edit and Copy, the switch between versions. */
  actions?: AttachedBar;

  constructor(
    ctx: ChatContext,
    readonly title: string,
    /** The tiddler this view shows: a different object means the message changed. */
    readonly tiddler: Tiddler | undefined,
  ) {
    const doc = ctx.document;
    const fields = (tiddler?.fields ?? {}) as Record<string, unknown>;
    const role = String(fields.role ?? 'assistant');
    const text = String(fields.text ?? '');
    // A reply that only called tools has nothing to show but its tool cards.
    const empty = role === 'assistant' && !text.trim() && !fields.reasoning;
    // A compaction's summary, and the messages it replaced in the prompt (shown collapsed; a click opens one).
    const summary = fields['agent-compaction'] === 'yes';
    const compacted = !summary && typeof fields['agent-compacted'] === 'string' && !!ctx.wiki.getTiddler(String(fields['agent-compacted']));
    const element = el(doc, 'div', `tc-ai-message tc-ai-message-${role}${empty ? ' tc-ai-message-empty' : ''}${summary ? ' tc-ai-message-summary' : ''}${compacted ? ' tc-ai-message-compacted' : ''}`);
    element.setAttribute('data-message', title);
    const meta = el(doc, 'div', 'tc-ai-message-meta');
    meta.appendChild(doc.createTextNode(summary ? ctx.lingo('Prompt/Summary') : ctx.lingo(`Role/${role}`) || role));
    if (compacted) {
      const badge = el(doc, 'button', 'tc-btn-invisible tc-ai-message-compacted-badge', ctx.lingo('Prompt/Compacted'));
      badge.setAttribute('type', 'button');
      badge.setAttribute('title', ctx.lingo('Prompt/CompactedHint'));
      badge.addEventListener('click', () => element.classList.toggle('tc-ai-message-open'));
      meta.appendChild(badge);
    }
    if (fields.model) meta.appendChild(el(doc, 'span', 'tc-ai-message-model', String(fields.model)));
    if (role === 'assistant' && ctx.replyCost?.(fields)) {
      this.cost = el(doc, 'span', 'tc-ai-message-cost');
      meta.appendChild(this.cost);
      this.showCost(ctx);
    }
    const finish = fields['agent-finish'];
    if (finish === 'error' || finish === 'canceled' || finish === 'interrupted' || finish === 'length') {
      meta.appendChild(el(doc, 'span', 'tc-ai-message-incomplete', ctx.lingo('Incomplete')));
    }
    element.appendChild(meta);
    if (fields.reasoning) element.appendChild(renderReasoning(ctx, String(fields.reasoning)).details);
    const body = el(doc, 'div', 'tc-ai-message-body');
    element.appendChild(body);
    if (role === 'assistant' && text.length > LARGE_REPLY) {
      // Formatting megabytes of wikitext would hold the page for seconds: shown as it was written.
      body.classList.add('tc-ai-message-plain');
      body.textContent = text;
      meta.appendChild(el(doc, 'span', 'tc-ai-message-note', ctx.lingo('LargeReply')));
    } else if (role === 'assistant') this.body = ctx.renderWikitext(text, body);
    else if (role === 'tool') renderToolMessage(ctx, title, fields, element, meta, body);
    else if (role === 'error') renderError(ctx, String(fields['error-kind'] ?? ''), text, body);
    else body.textContent = text;
    if (role === 'user' && fields['agent-source']) meta.appendChild(sourceBadge(ctx, String(fields['agent-source'])));
    const attachments = $tw.utils.parseStringArray(String(fields.attachments ?? '')) ?? [];
    if (attachments.length) element.appendChild(renderChips(ctx, attachments));
    this.element = element;
  }

  /** Show the reply's cost again (the prices changed). */
  showCost(ctx: ChatContext): void {
    const cost = this.cost && ctx.replyCost?.((this.tiddler?.fields ?? {}) as Record<string, unknown>);
    if (!this.cost || !cost) return;
    this.cost.textContent = cost.text;
    this.cost.setAttribute('title', cost.title);
  }

  /** Rendered replies contain links whose look depends on other tiddlers. */
  refresh(changed: IChangedTiddlers): void {
    this.body?.refresh(changed);
  }

  remove(): void {
    this.bar?.remove();
    this.body?.remove();
    this.element.parentNode?.removeChild(this.element);
  }
}

/** The model's thinking, folded away; `text` is the element that holds it. */
export function renderReasoning(ctx: ChatContext, reasoning: string): { details: HTMLElement; text: HTMLElement } {
  const details = el(ctx.document, 'details', 'tc-ai-message-reasoning');
  const text = el(ctx.document, 'div', 'tc-ai-message-reasoning-text', reasoning);
  details.appendChild(el(ctx.document, 'summary', '', ctx.lingo('Reasoning')));
  details.appendChild(text);
  return { details, text };
}

/**
 * An error: a headline in the UI's language for its kind (stored by the engine), then the
 * technical detail as written. A message without a kind (older chats) shows its text alone.
 */
function renderError(ctx: ChatContext, kind: string, text: string, body: HTMLElement): void {
  const headline = kind ? ctx.lingo(`Error/${kind}`) : '';
  if (!headline) {
    body.textContent = text;
    return;
  }
  body.setAttribute('data-error-kind', kind);
  body.appendChild(el(ctx.document, 'div', 'tc-ai-error-headline', headline));
  body.appendChild(el(ctx.document, 'div', 'tc-ai-error-detail', text));
}

/** A tool call: a compact card, or, while it waits for the user, an approval or question card. */
function renderToolMessage(ctx: ChatContext, title: string, fields: Record<string, unknown>, element: HTMLElement, meta: HTMLElement, body: HTMLElement): void {
  const doc = ctx.document;
  const name = String(fields['tool-name'] ?? '');
  const status = String(fields['tool-status'] ?? '');
  const args = String(fields['tool-args'] ?? '{}');
  const result = String(fields.text ?? '');
  element.setAttribute('data-tool', name);
  element.setAttribute('data-tool-status', status);
  meta.appendChild(el(doc, 'span', 'tc-ai-tool-name', name));
  // A call the write gate refused did not fail: it was not allowed (its result says why).
  const label = status === 'error' && result.startsWith('Refused:') ? 'refused' : status;
  meta.appendChild(el(doc, 'span', `tc-ai-tool-status tc-ai-tool-status-${status}`, ctx.lingo(`ToolStatus/${label}`) || label));
  if (status === 'pending' && name === 'ask-question') {
    renderQuestion(ctx, title, args, body);
    return;
  }
  if (status === 'pending') {
    const only = String(fields['approval-choices'] ?? '').split(/\s+/).filter(Boolean);
    renderApproval(ctx, title, name, args, result, fields['tool-changes'], body, only, editableOf(fields));
    return;
  }
  if (fields['agent-child']) meta.appendChild(chatLink(ctx, String(fields['agent-child']), ctx.lingo('SubAgent/Open') || 'Open the sub-agent chat'));
  // A refusal or failure is shown, not folded away: the user sees what the agent was refused.
  if (status === 'error' || status === 'denied' || status === 'timeout') body.appendChild(el(doc, 'div', 'tc-ai-tool-error', result));
  const details = toolDetails(ctx, args);
  details.appendChild(el(doc, 'pre', 'tc-ai-tool-result', result));
  body.appendChild(details);
}

/** Attached tiddlers on a message: chips that open the tiddler. */
function renderChips(ctx: ChatContext, titles: string[]): HTMLElement {
  const chips = el(ctx.document, 'div', 'tc-ai-message-chips');
  for (const title of titles) {
    const chip = el(ctx.document, 'a', 'tc-ai-chip tc-tiddlylink', title);
    chip.setAttribute('data-title', title);
    chip.setAttribute('href', `#${encodeURIComponent(title)}`);
    chip.addEventListener?.('click', (event: Event) => {
      event.preventDefault();
      ctx.navigate(title);
    });
    chips.appendChild(chip);
  }
  return chips;
}

/** A link that opens a chat (a sub-agent's) in the story. */
function chatLink(ctx: ChatContext, chat: string, label: string): HTMLElement {
  const link = el(ctx.document, 'a', 'tc-tiddlylink tc-ai-chat-link', label);
  link.setAttribute('href', `#${encodeURIComponent(chat)}`);
  link.setAttribute('title', chat);
  link.addEventListener?.('click', (event: Event) => {
    event.preventDefault();
    ctx.navigate(chat);
  });
  return link;
}

/** On a message a schedule or heartbeat sent: what sent it. */
function sourceBadge(ctx: ChatContext, source: string): HTMLElement {
  const heartbeat = source.startsWith('heartbeat:');
  const badge = el(ctx.document, 'span', `tc-ai-message-source tc-ai-message-source-${heartbeat ? 'heartbeat' : 'schedule'}`, heartbeat ? ctx.lingo('Source/Heartbeat') || 'Heartbeat' : ctx.lingo('Source/Schedule') || 'Scheduled');
  badge.setAttribute('title', source.slice(source.indexOf(':') + 1));
  return badge;
}

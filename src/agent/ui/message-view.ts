/*\
One message of the chat as DOM: its meta line (role, model, cost, "incomplete"), its reasoning,
its body and its attachment chips. A reply renders as wikitext under the safe rule set; a
user's or an error message as plain text; a tool call as one line saying what it did
(tool-step-view.ts) and, while it waits for the user, an approval or question card
(cards.ts). A view belongs to one version of its tiddler: when the tiddler changes, the
message list renders a new view.
\*/
import type { IChangedTiddlers, Tiddler } from 'tiddlywiki';
import { el, type ChatContext, type RenderedTree } from './chat-context';
import { offeredChoices } from '../store/approval-choices';
import { editableOf, renderApproval, renderQuestion } from './cards';
import { errorHintText } from './error-hint';
import { renderToolStep } from './tool-step-view';
import { RuleNote } from './rule-note';
import type * as ReplyExtras from '$:/plugins/tiddlyagent/agent/ui/reply-extras.js';
import type { ReplySources } from './reply-sources';

/** Replies longer than this (characters) show as plain text, not formatted wikitext. */
export const LARGE_REPLY = 500_000;

/** A bar a view carries (turn-actions.ts, message-actions.ts); its key says what it shows. */
export interface AttachedBar {
  element: HTMLElement;
  key: string;
  remove(): void;
}

/** A bar rendered for `key`, removed by taking its element out of the page. */
export function attachedBar(element: HTMLElement, key: string): AttachedBar {
  return {
    element,
    key,
    remove() {
      element.parentNode?.removeChild(element);
    },
  };
}

export class MessageView {
  readonly element: HTMLElement;
  /** What was rendered with TiddlyWiki's widgets: a reply, a tool call's line and its card. */
  private readonly trees: RenderedTree[] = [];
  /** On a call a rule of the user's let run: which rule, and its revoke (rule-note.ts). */
  private readonly rule?: RuleNote;
  private readonly cost?: HTMLElement;
  /** A reply's sources and whether they changed since (reply-sources.ts). */
  readonly sources?: ReplySources;
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
    const element = el(
      doc,
      'div',
      `tc-ai-message tc-ai-message-${role}${empty ? ' tc-ai-message-empty' : ''}${summary ? ' tc-ai-message-summary' : ''}${compacted ? ' tc-ai-message-compacted' : ''}`,
    );
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
    // A tool call's line says what it is; its meta line only carries a "compacted" badge.
    if (role !== 'tool' || compacted) element.appendChild(meta);
    if (fields.reasoning) element.appendChild(renderReasoning(ctx, String(fields.reasoning)).details);
    const body = el(doc, 'div', 'tc-ai-message-body');
    element.appendChild(body);
    if (role === 'assistant' && text.length > LARGE_REPLY) {
      // Formatting megabytes of wikitext would hold the page for seconds: shown as it was written.
      body.classList.add('tc-ai-message-plain');
      body.textContent = text;
      meta.appendChild(el(doc, 'span', 'tc-ai-message-note', ctx.lingo('LargeReply')));
    } else if (role === 'assistant') this.trees.push(ctx.renderWikitext(text, body));
    else if (role === 'tool') {
      this.trees.push(...renderToolMessage(ctx, title, fields, element, body));
      this.rule = RuleNote.of(ctx, title, fields);
      if (this.rule) body.appendChild(this.rule.element);
    } else if (role === 'error') {
      const settings = renderError(ctx, fields, text, body);
      if (settings) this.trees.push(settings);
    } else body.textContent = text;
    if (role === 'user' && fields['agent-source']) meta.appendChild(sourceBadge(ctx, String(fields['agent-source'])));
    const attachments = $tw.utils.parseStringArray(String(fields.attachments ?? '')) ?? [];
    if (attachments.length) element.appendChild(renderChips(ctx, attachments));
    if (role === 'assistant' && (fields['agent-memories'] || fields['agent-sources'])) {
      const extras = require('$:/plugins/tiddlyagent/agent/ui/reply-extras.js') as typeof ReplyExtras;
      const memories = extras.renderMemoriesUsed(ctx, fields);
      if (memories) element.appendChild(memories);
      this.sources = extras.ReplySources.of(ctx, fields);
    }
    if (this.sources) element.appendChild(this.sources.element);
    this.element = element;
  }

  /** Show the reply's cost again (the prices changed). */
  showCost(ctx: ChatContext): void {
    const cost = this.cost && ctx.replyCost?.((this.tiddler?.fields ?? {}) as Record<string, unknown>);
    if (!this.cost || !cost) return;
    this.cost.textContent = cost.text;
    this.cost.setAttribute('title', cost.title);
  }

  /** Rendered replies and tool lines contain links whose look depends on other tiddlers; a rule note, on the rule's agent. */
  refresh(changed: IChangedTiddlers): void {
    for (const tree of this.trees) tree.refresh(changed);
    this.rule?.refresh(changed);
  }

  remove(): void {
    this.bar?.remove();
    for (const tree of this.trees) tree.remove();
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

/** Errors the user fixes in the settings: the setup (no provider, no key, no model…), a refused key, an unknown model or address. */
const SETUP_ERRORS = ['config', 'auth', 'not-found'];

/**
 * An error: a headline in the UI's language for its kind (stored by the engine), what to do
 * about it where the detail's advice is translated (ui/error-hint.ts), then the technical
 * detail as written. A message without a kind (older chats) shows its text alone. A setup
 * error ends with a button that opens the settings where it is fixed (`error-tiddler`: the
 * agent or profile it names; ui/open-settings-widget.ts).
 */
function renderError(ctx: ChatContext, fields: Record<string, unknown>, text: string, body: HTMLElement): RenderedTree | undefined {
  const kind = String(fields['error-kind'] ?? '');
  const subject = String(fields['error-tiddler'] ?? '');
  const headline = kind ? ctx.lingo(`Error/${kind}`) : '';
  if (!headline) {
    body.textContent = text;
    return undefined;
  }
  body.setAttribute('data-error-kind', kind);
  body.appendChild(el(ctx.document, 'div', 'tc-ai-error-headline', headline));
  const hint = errorHintText((title) => ctx.wiki.getTiddlerText(title) ?? undefined, fields);
  if (hint) body.appendChild(el(ctx.document, 'div', 'tc-ai-error-hint', hint));
  body.appendChild(el(ctx.document, 'div', 'tc-ai-error-detail', text));
  if (!SETUP_ERRORS.includes(kind)) return undefined;
  const str = (value: string) => ({ type: 'string', value });
  const button = {
    type: 'button',
    attributes: { class: str('tc-ai-error-settings') },
    children: [
      { type: 'action-ai-settings', attributes: { chat: str(ctx.chat), subject: str(subject) } },
      { type: 'text', text: ctx.lingo('Settings/Open') },
    ],
  };
  const actions = el(ctx.document, 'div', 'tc-ai-error-actions');
  body.appendChild(actions);
  return ctx.renderTree([button] as never, actions);
}

/** A tool call: its line, and, while it waits for the user, an approval or question card. */
function renderToolMessage(ctx: ChatContext, title: string, fields: Record<string, unknown>, element: HTMLElement, body: HTMLElement): RenderedTree[] {
  const name = String(fields['tool-name'] ?? '');
  const status = String(fields['tool-status'] ?? '');
  const args = String(fields['tool-args'] ?? '{}');
  element.setAttribute('data-tool', name);
  element.setAttribute('data-tool-status', status);
  if (status === 'pending' && name === 'ask-question') {
    renderQuestion(ctx, title, args, body);
    return [];
  }
  const trees = [renderToolStep(ctx, fields, body)];
  if (fields['agent-child'])
    body.firstElementChild?.appendChild(chatLink(ctx, String(fields['agent-child']), ctx.lingo('SubAgent/Open') || 'Open the sub-agent chat'));
  if (status === 'pending') {
    const only = offeredChoices(fields);
    renderApproval(ctx, title, name, args, String(fields.text ?? ''), fields['tool-changes'], body, only, editableOf(fields));
  }
  return trees;
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

/** On a message a schedule, heartbeat or trigger sent: what sent it. */
function sourceBadge(ctx: ChatContext, source: string): HTMLElement {
  const kind = source.startsWith('heartbeat:') ? 'heartbeat' : source.startsWith('trigger:') ? 'trigger' : 'schedule';
  const words = { heartbeat: ['Source/Heartbeat', 'Heartbeat'], trigger: ['Source/Trigger', 'Triggered'], schedule: ['Source/Schedule', 'Scheduled'] }[kind];
  const badge = el(ctx.document, 'span', `tc-ai-message-source tc-ai-message-source-${kind}`, ctx.lingo(words[0]!) || words[1]!);
  badge.setAttribute('title', source.slice(source.indexOf(':') + 1));
  return badge;
}

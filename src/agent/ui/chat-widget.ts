/*\
<$ai-chat chat=<title> page-size="50"/>: a chat with its messages, the streaming reply,
a status line and the composer.

Why a JavaScript widget and not a wikitext list: every wiki write refreshes the whole widget
tree, so a list of N messages costs O(N) per write. This widget keeps one DOM node per
message and, on a wiki change, touches only the messages that changed. Streamed text
arrives through the runner's in-memory event bus and re-renders only the streaming
message's own DOM, at most every 100 ms.
\*/
import { widget as Widget } from '$:/core/modules/widgets/widget.js';
import type { IChangedTiddlers } from 'tiddlywiki';
import type { AgentEvent, LiveChatState } from '$:/plugins/tiddlyagent/agent/lib.js';
import { lib } from './library';
import { Composer } from './composer';

const STREAM_RENDER_INTERVAL_MS = 100;
const LANGUAGE = '$:/plugins/tiddlyagent/agent/language/';

interface MessageView {
  element: HTMLElement;
  body?: Widget;
  /** Streaming only: the settled blocks, rendered once (see settledLength). */
  settled?: { element: HTMLElement; widgets: Widget[]; length: number };
  seq: number;
  /** The turn action bar, on the last message of a turn: its key says what it shows. */
  actions?: { element: HTMLElement; key: string; diff?: Widget };
}

interface ListedMessage {
  title: string;
  seq: number;
  role: string;
}

type Doc = Document;

/** A turn journal or a call's planned changes: before and after fields per title (null: absent). */
type Journal = Record<string, { before: Record<string, string> | null; after: Record<string, string> | null }>;

function parseJournal(text: unknown): Journal {
  try {
    const parsed = JSON.parse(String(text ?? '{}')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Journal) : {};
  } catch {
    return {};
  }
}

class AiChatWidget extends Widget {
  private chat = '';
  private pageSize = 50;
  private shown = 50;
  private root!: HTMLElement;
  private list!: HTMLElement;
  private olderButton!: HTMLButtonElement;
  private statusLine!: HTMLElement;
  private meter!: HTMLElement;
  /** Messages sent while a turn runs, shown until their turn starts. */
  private queuedList!: HTMLElement;
  private stopButton?: HTMLButtonElement;
  private composer?: Composer;
  private views = new Map<string, MessageView>();
  private live: LiveChatState = lib().initialLiveState();
  /** Why the last request to the runner was refused, shown in the status line. */
  private requestError = '';
  private streamView?: MessageView;
  private streamTimer?: ReturnType<typeof setTimeout>;
  private lastStreamRender = 0;
  private unsubscribe?: () => void;
  private stuckToEnd = true;
  private scrollPending = false;
  /** The message list as last synced, for updating turn action bars without re-listing. */
  private listed: { all: ListedMessage[]; window: ListedMessage[] } = { all: [], window: [] };

  override render(parent: Element, nextSibling: Element | null): void {
    this.parentDomNode = parent;
    this.computeAttributes();
    this.execute();
    const doc = this.document as unknown as Doc;
    this.root = el(doc, 'div', 'tc-ai-chat');
    this.root.setAttribute('data-chat', this.chat);
    this.list = el(doc, 'div', 'tc-ai-chat-messages');
    this.olderButton = el(doc, 'button', 'tc-btn-invisible tc-ai-chat-older') as HTMLButtonElement;
    this.olderButton.addEventListener?.('click', () => this.showOlder());
    this.list.addEventListener?.('scroll', () => {
      this.stuckToEnd = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    });
    this.list.appendChild(this.olderButton);
    this.statusLine = el(doc, 'div', 'tc-ai-chat-status');
    this.meter = el(doc, 'div', 'tc-ai-chat-meter');
    this.root.appendChild(this.list);
    this.queuedList = el(doc, 'div', 'tc-ai-chat-queued');
    this.root.appendChild(this.queuedList);
    const footer = el(doc, 'div', 'tc-ai-chat-footer');
    footer.appendChild(this.statusLine);
    footer.appendChild(this.meter);
    this.root.appendChild(footer);
    if ($tw.browser) this.root.appendChild(this.renderComposer(doc));
    this.syncMessages();
    // A turn already running sends its live state first (a snapshot): the streamed text so far.
    if ($tw.browser) this.unsubscribe = lib().getRunner().subscribe(this.chat, (event) => this.onEvent(event));
    this.updateStatus();
    parent.insertBefore(this.root, nextSibling);
    this.domNodes.push(this.root);
    this.scrollToEnd(true);
  }

  override execute(): void {
    this.chat = this.getAttribute('chat', this.getVariable('currentTiddler'));
    this.pageSize = Math.max(1, Number(this.getAttribute('page-size', '50')) || 50);
    this.shown = this.pageSize;
  }

  override refresh(changed: IChangedTiddlers): boolean {
    const attrs = this.computeAttributes();
    if (attrs.chat || attrs['page-size']) {
      this.teardown();
      this.refreshSelf();
      return true;
    }
    const prefix = lib().messagePrefix(this.chat);
    const touched = Object.keys(changed).filter((title) => title.startsWith(prefix));
    if (touched.length) this.syncMessages(touched);
    else if (Object.keys(changed).some((title) => title.startsWith(`$:/ai/journal/${this.chat}/`))) this.syncMessages();
    if (changed[this.chat]) this.updateStatus();
    // Rendered replies contain links whose look depends on other tiddlers.
    for (const view of this.views.values()) view.body?.refresh(changed);
    return false;
  }

  override removeChildDomNodes(): void {
    this.teardown();
    super.removeChildDomNodes();
  }

  destroy(): void {
    this.teardown();
    (Widget.prototype as { destroy?: () => void }).destroy?.call(this);
  }

  private teardown(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.streamTimer) clearTimeout(this.streamTimer);
    this.streamTimer = undefined;
  }

  // ---- messages -------------------------------------------------------------------------

  private messageTitles(): ListedMessage[] {
    const titles = this.wiki.filterTiddlers('[field:agent-chat<chat>]', this.makeFakeWidgetWithVariables({ chat: this.chat }));
    const out: ListedMessage[] = [];
    for (const title of titles) {
      const fields = this.wiki.getTiddler(title)?.fields;
      if (!fields) continue;
      out.push({ title, seq: Number(fields['agent-seq']) || 0, role: String(fields.role ?? '') });
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** Bring the rendered window (the last `shown` messages) in line with the wiki. */
  private syncMessages(changedTitles: string[] = []): void {
    const all = this.messageTitles();
    const window = all.slice(Math.max(0, all.length - this.shown));
    const wanted = new Set(window.map((m) => m.title));
    for (const [title, view] of this.views) {
      if (!wanted.has(title) || changedTitles.includes(title)) this.removeView(title, view);
    }
    const doc = this.document as unknown as Doc;
    // Walk backwards so each new message goes in front of the one after it.
    let next: HTMLElement | null = this.streamView?.element ?? null;
    for (let i = window.length - 1; i >= 0; i--) {
      const { title, seq } = window[i]!;
      let view = this.views.get(title);
      if (!view) {
        view = this.renderMessage(doc, title, seq);
        this.views.set(title, view);
        this.list.insertBefore(view.element, next);
      }
      next = view.element;
    }
    this.listed = { all, window };
    this.syncTurnActions(all, window);
    const hidden = all.length - window.length;
    this.olderButton.textContent = hidden > 0 ? this.lingo('ShowOlder').replace('$count$', String(hidden)) : '';
    if (hidden > 0) this.olderButton.removeAttribute('hidden');
    else this.olderButton.setAttribute('hidden', '');
    this.scrollToEnd();
  }

  /** Put the turn action bar on the last message of every turn in the window. */
  private syncTurnActions(all: ListedMessage[], window: ListedMessage[], force = false): void {
    if (!$tw.browser) return;
    const active = this.isActive();
    let turnUser = '';
    const first = all.length - window.length;
    for (let i = 0; i < all.length; i++) {
      const m = all[i]!;
      if (m.role === 'user') turnUser = m.title;
      if (i < first) continue;
      const view = this.views.get(m.title);
      if (!view) continue;
      const end = i === all.length - 1 || all[i + 1]!.role === 'user';
      const key = end && turnUser && m.role !== 'user' ? `${turnUser}|${i === all.length - 1 && !active}|${this.journalState(turnUser)}` : '';
      if (!force && (view.actions?.key ?? '') === key) continue;
      if (view.actions) {
        view.actions.diff?.removeChildDomNodes();
        view.actions.element.parentNode?.removeChild(view.actions.element);
        view.actions = undefined;
      }
      if (key) view.actions = this.renderTurnActions(turnUser, i === all.length - 1 && !active, key, all.slice(all.findIndex((x) => x.title === turnUser), i + 1));
      if (view.actions) view.element.appendChild(view.actions.element);
    }
  }

  private journalTitle(userMessage: string): string {
    return `$:/ai/journal/${this.chat}/${userMessage.slice(userMessage.lastIndexOf('/') + 1)}`;
  }

  /** A short fingerprint of a turn's journal, so the bar re-renders when it changes. */
  private journalState(userMessage: string): string {
    const fields = this.wiki.getTiddler(this.journalTitle(userMessage))?.fields;
    return fields ? `${String(fields.text ?? '').length}:${fields['agent-rolled-back'] ? 'rb' : ''}` : '';
  }

  private renderTurnActions(userMessage: string, last: boolean, key: string, turn: ListedMessage[]): MessageView['actions'] {
    const doc = this.document as unknown as Doc;
    const runner = lib().getRunner();
    const element = el(doc, 'div', 'tc-ai-turn-actions');
    element.setAttribute('data-turn', userMessage);
    const actions: NonNullable<MessageView['actions']> = { element, key };
    const journalTiddler = this.wiki.getTiddler(this.journalTitle(userMessage));
    const journal = parseJournal(journalTiddler?.fields.text);
    const changed = Object.keys(journal);
    const button = (cls: string, label: string, action: string, onClick: () => void) => {
      const b = el(doc, 'button', `tc-btn-invisible tc-ai-turn-${cls}`, label);
      b.setAttribute('data-ai-action', action);
      b.addEventListener('click', onClick);
      element.appendChild(b);
      return b;
    };
    const panel = el(doc, 'div', 'tc-ai-turn-panel');
    if (changed.length) {
      button('changes', this.lingo('Turn/Changed').replace('$count$', String(changed.length)), 'show-changes', () => {
        if (actions.diff) {
          actions.diff.removeChildDomNodes();
          actions.diff = undefined;
          panel.textContent = '';
        } else {
          panel.textContent = '';
          actions.diff = this.renderChanges(journal, panel, 'turn');
        }
      });
      if (journalTiddler?.fields['agent-rolled-back']) element.appendChild(el(doc, 'span', 'tc-ai-turn-rolled-back', this.lingo('Turn/RolledBack')));
      else {
        button('rollback', this.lingo('Turn/Rollback'), 'rollback', () => {
          void this.request(runner.rollback(this.chat, userMessage)).then((result) => {
          if (!result?.conflicts.length) return;
          panel.textContent = '';
          actions.diff?.removeChildDomNodes();
          actions.diff = undefined;
          const ask = el(doc, 'div', 'tc-ai-card tc-ai-rollback-conflict');
          ask.appendChild(el(doc, 'div', 'tc-ai-card-title', this.lingo('Turn/Conflict')));
          ask.appendChild(el(doc, 'div', 'tc-ai-rollback-conflicts', result.conflicts.join(', ')));
          const force = el(doc, 'button', 'tc-ai-rollback-force', this.lingo('Turn/RollbackAnyway'));
          force.setAttribute('data-ai-action', 'rollback-force');
          force.addEventListener('click', () => void this.request(runner.rollback(this.chat, userMessage, true)));
          const cancel = el(doc, 'button', 'tc-ai-rollback-cancel', this.lingo('Question/Cancel'));
          cancel.addEventListener('click', () => (panel.textContent = ''));
          ask.appendChild(force);
          ask.appendChild(cancel);
          panel.appendChild(ask);
          });
        });
      }
    }
    if (last) button('retry', this.lingo('Turn/Retry'), 'retry', () => void this.request(runner.retry(this.chat, userMessage)));
    button('delete', this.lingo('Turn/Delete'), 'delete-turn', () => void this.request(runner.deleteTurn(this.chat, userMessage)));
    const reply = [...turn].reverse().find((m) => m.role === 'assistant');
    if (reply) {
      button('copy', this.lingo('Turn/Copy'), 'copy-reply', () => {
        $tw.utils.copyToClipboard(String(this.wiki.getTiddler(reply.title)?.fields.text ?? ''));
      });
    }
    element.appendChild(panel);
    return actions;
  }

  /**
   * What changes, tiddler by tiddler, with TiddlyWiki's <$diff-text> (diff-match-patch): the
   * turn diff (what a turn changed) and the approval card (what a call would change). Each
   * resulting tiddler's active content is flagged. The card shows every field of the result
   * (type and tags always), the turn diff only the fields that changed.
   */
  private renderChanges(journal: Journal, into: HTMLElement, mode: 'turn' | 'approval'): Widget {
    const str = (value: string) => ({ type: 'string', value });
    const text = (value: string) => ({ type: 'text', text: value });
    const element = (tag: string, className: string, children: unknown[]) => ({ type: 'element', tag, attributes: { class: str(className) }, children });
    // A value that is only added or only removed reads better whole than as a diff.
    const diff = (a: string, b: string) =>
      !a ? element('span', 'tc-ai-diff-added', [text(b)]) : !b ? element('span', 'tc-ai-diff-removed', [text(a)]) : { type: 'diff-text', attributes: { source: str(a), dest: str(b), mode: str('words') } };
    const nodes: unknown[] = [];
    for (const [title, { before, after }] of Object.entries(journal)) {
      const state = !before ? 'created' : !after ? 'deleted' : 'changed';
      const rows: unknown[] = [];
      const quiet = mode === 'turn' ? ['text', 'modified', 'created'] : ['text', 'title'];
      const keys = [...new Set([...(mode === 'approval' && after ? ['type', 'tags'] : []), ...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].filter((k) => !quiet.includes(k));
      for (const k of keys) {
        const a = before?.[k] ?? '';
        const b = after?.[k] ?? (k === 'type' && after ? 'text/vnd.tiddlywiki' : '');
        if (a === b && mode === 'turn') continue;
        rows.push(element('tr', a === b ? 'tc-ai-diff-same' : '', [element('th', '', [text(k)]), element('td', '', [a === b ? text(b || this.lingo('Changes/None')) : diff(a, b)])]));
      }
      const textBefore = before?.text ?? '';
      const textAfter = after?.text ?? '';
      const flags = after ? lib().findActiveContent(after) : [];
      nodes.push(
        element('div', `tc-ai-diff tc-ai-diff-${state}`, [
          element('div', 'tc-ai-diff-title', [{ type: 'link', attributes: { to: str(title) }, children: [text(title)] }, text(` · ${this.lingo(`Turn/State/${state}`)}`)]),
          ...(flags.length ? [element('div', 'tc-ai-active-content', [element('strong', '', [text(this.lingo('Changes/Active'))]), element('ul', '', flags.map((f) => element('li', '', [text(f)])))])] : []),
          ...(rows.length ? [element('table', 'tc-ai-diff-fields', rows)] : []),
          ...(textBefore !== textAfter ? [element('div', 'tc-ai-diff-text', [diff(textBefore, textAfter)])] : []),
        ]),
      );
    }
    const widget = this.wiki.makeWidget({ tree: nodes } as never, { parentWidget: this, document: this.document }) as unknown as Widget;
    widget.render(into as unknown as Element, null);
    return widget;
  }

  private showOlder(): void {
    const before = this.list.scrollHeight - this.list.scrollTop;
    this.shown += this.pageSize;
    this.syncMessages();
    this.list.scrollTop = this.list.scrollHeight - before;
  }

  private removeView(title: string, view: MessageView): void {
    view.body?.removeChildDomNodes();
    view.element.parentNode?.removeChild(view.element);
    this.views.delete(title);
  }

  private renderMessage(doc: Doc, title: string, seq: number): MessageView {
    const fields = (this.wiki.getTiddler(title)?.fields ?? {}) as Record<string, unknown>;
    const role = String(fields.role ?? 'assistant');
    // A reply that only called tools has nothing to show but its tool cards.
    const empty = role === 'assistant' && !String(fields.text ?? '').trim() && !fields.reasoning;
    const element = el(doc, 'div', `tc-ai-message tc-ai-message-${role}${empty ? ' tc-ai-message-empty' : ''}`);
    element.setAttribute('data-message', title);
    const meta = el(doc, 'div', 'tc-ai-message-meta');
    meta.appendChild(text(doc, this.lingo(`Role/${role}`) || role));
    if (fields.model) meta.appendChild(el(doc, 'span', 'tc-ai-message-model', String(fields.model)));
    const finish = fields['agent-finish'];
    if (finish === 'error' || finish === 'canceled' || finish === 'interrupted' || finish === 'length') {
      meta.appendChild(el(doc, 'span', 'tc-ai-message-incomplete', this.lingo('Incomplete')));
    }
    element.appendChild(meta);
    if (fields.reasoning) element.appendChild(this.renderReasoning(doc, String(fields.reasoning)));
    const bodyElement = el(doc, 'div', 'tc-ai-message-body');
    element.appendChild(bodyElement);
    const view: MessageView = { element, seq };
    const body = String(fields.text ?? '');
    if (role === 'assistant') view.body = this.renderWikitext(body, bodyElement);
    else if (role === 'tool') view.body = this.renderToolMessage(doc, title, fields, element, meta, bodyElement);
    else bodyElement.textContent = body;
    const attachments = $tw.utils.parseStringArray(String(fields.attachments ?? '')) ?? [];
    if (attachments.length) element.appendChild(this.renderChips(doc, attachments));
    return view;
  }

  /** A tool call: a compact card, or, while it waits for the user, a confirmation or question card. */
  private renderToolMessage(doc: Doc, title: string, fields: Record<string, unknown>, element: HTMLElement, meta: HTMLElement, body: HTMLElement): Widget | undefined {
    const name = String(fields['tool-name'] ?? '');
    const status = String(fields['tool-status'] ?? '');
    const args = String(fields['tool-args'] ?? '{}');
    element.setAttribute('data-tool', name);
    element.setAttribute('data-tool-status', status);
    meta.appendChild(el(doc, 'span', 'tc-ai-tool-name', name));
    // A call the write gate refused did not fail: it was not allowed (its result says why).
    const label = status === 'error' && String(fields.text ?? '').startsWith('Refused:') ? 'refused' : status;
    meta.appendChild(el(doc, 'span', `tc-ai-tool-status tc-ai-tool-status-${status}`, this.lingo(`ToolStatus/${label}`) || label));
    if (status === 'pending' && name === 'ask-question') return this.renderQuestion(doc, title, args, body);
    if (status === 'pending') return this.renderApproval(doc, title, name, args, String(fields.text ?? ''), fields['tool-changes'], body);
    // A refusal or failure is shown, not folded away: the user sees what the agent was refused.
    if (status === 'error' || status === 'denied' || status === 'timeout') body.appendChild(el(doc, 'div', 'tc-ai-tool-error', String(fields.text ?? '')));
    const details = el(doc, 'details', 'tc-ai-tool-details');
    details.appendChild(el(doc, 'summary', '', this.lingo('ToolDetails')));
    details.appendChild(el(doc, 'pre', 'tc-ai-tool-args', prettyJson(args)));
    details.appendChild(el(doc, 'pre', 'tc-ai-tool-result', String(fields.text ?? '')));
    body.appendChild(details);
    return undefined;
  }

  /** A confirmation card: exactly what the call would change when the tool can tell, else its arguments and preview. */
  private renderApproval(doc: Doc, title: string, name: string, args: string, preview: string, changes: unknown, body: HTMLElement): Widget | undefined {
    const card = el(doc, 'div', 'tc-ai-card tc-ai-approval');
    card.appendChild(el(doc, 'div', 'tc-ai-card-title', this.lingo('Approval/Title').replace('$tool$', name)));
    const journal = changes ? parseJournal(changes) : {};
    let widget: Widget | undefined;
    if (Object.keys(journal).length) {
      const view = el(doc, 'div', 'tc-ai-approval-changes');
      card.appendChild(view);
      widget = this.renderChanges(journal, view, 'approval');
      const details = el(doc, 'details', 'tc-ai-tool-details');
      details.appendChild(el(doc, 'summary', '', this.lingo('ToolDetails')));
      details.appendChild(el(doc, 'pre', 'tc-ai-tool-args', prettyJson(args)));
      card.appendChild(details);
    } else {
      card.appendChild(el(doc, 'pre', 'tc-ai-tool-args', prettyJson(args)));
      if (preview) card.appendChild(el(doc, 'pre', 'tc-ai-approval-preview', preview));
    }
    const buttons = el(doc, 'div', 'tc-ai-card-buttons');
    for (const choice of ['once', 'chat', 'always', 'deny'] as const) {
      const button = el(doc, 'button', `tc-ai-approve-${choice}`, this.lingo(`Approval/${choice}`)) as HTMLButtonElement;
      button.setAttribute('data-ai-action', `approve-${choice}`);
      button.addEventListener?.('click', () => void this.request(lib().getRunner().decide(this.chat, title, choice)));
      buttons.appendChild(button);
    }
    card.appendChild(buttons);
    body.appendChild(card);
    return widget;
  }

  private renderQuestion(doc: Doc, title: string, args: string, body: HTMLElement): undefined {
    let q: { question?: string; inputType?: string; options?: string[]; allowFreeform?: boolean } = {};
    try {
      q = JSON.parse(args);
    } catch {
      // shown with an empty question; the user can still dismiss it
    }
    const card = el(doc, 'div', 'tc-ai-card tc-ai-question');
    card.appendChild(el(doc, 'div', 'tc-ai-card-title', q.question ?? ''));
    const inputs: HTMLInputElement[] = [];
    const multi = q.inputType === 'multi-select';
    for (const option of q.inputType === 'text' ? [] : (q.options ?? [])) {
      const label = el(doc, 'label', 'tc-ai-question-option');
      const input = doc.createElement('input');
      input.type = multi ? 'checkbox' : 'radio';
      input.name = `ai-question-${title}`;
      input.value = option;
      inputs.push(input);
      label.appendChild(input);
      label.appendChild(text(doc, ' ' + option));
      card.appendChild(label);
    }
    let free: HTMLInputElement | undefined;
    if (q.inputType === 'text' || q.allowFreeform !== false) {
      free = doc.createElement('input');
      free.type = 'text';
      free.className = 'tc-ai-question-free';
      free.placeholder = this.lingo('Question/Free');
      card.appendChild(free);
    }
    const buttons = el(doc, 'div', 'tc-ai-card-buttons');
    const submit = el(doc, 'button', 'tc-ai-question-submit', this.lingo('Question/Submit'));
    submit.setAttribute('data-ai-action', 'answer');
    submit.addEventListener?.('click', () => {
      const answers = inputs.filter((i) => i.checked).map((i) => i.value);
      if (free?.value.trim()) answers.push(free.value.trim());
      void this.request(lib().getRunner().answer(this.chat, title, answers));
    });
    const cancel = el(doc, 'button', 'tc-ai-question-cancel', this.lingo('Question/Cancel'));
    cancel.setAttribute('data-ai-action', 'dismiss');
    cancel.addEventListener?.('click', () => void this.request(lib().getRunner().answer(this.chat, title, null)));
    buttons.appendChild(submit);
    buttons.appendChild(cancel);
    card.appendChild(buttons);
    card.addEventListener?.('keydown', (event: Event) => {
      if ((event as KeyboardEvent).key === 'Escape') void this.request(lib().getRunner().answer(this.chat, title, null));
    });
    body.appendChild(card);
  }

  /** Attached tiddlers on a message: chips that open the tiddler. */
  private renderChips(doc: Doc, titles: string[]): HTMLElement {
    const chips = el(doc, 'div', 'tc-ai-message-chips');
    for (const title of titles) {
      const chip = el(doc, 'a', 'tc-ai-chip tc-tiddlylink', title);
      chip.setAttribute('data-title', title);
      chip.setAttribute('href', `#${encodeURIComponent(title)}`);
      chip.addEventListener?.('click', (event: Event) => {
        event.preventDefault();
        this.navigate(title);
      });
      chips.appendChild(chip);
    }
    return chips;
  }

  private renderReasoning(doc: Doc, reasoning: string): HTMLElement {
    const details = el(doc, 'details', 'tc-ai-message-reasoning');
    details.appendChild(el(doc, 'summary', '', this.lingo('Reasoning')));
    details.appendChild(el(doc, 'div', 'tc-ai-message-reasoning-text', reasoning));
    return details;
  }

  /** Model output is rendered as wikitext under the safe rule set (ui/safe-render.ts). */
  private renderWikitext(source: string, into: HTMLElement): Widget {
    const widget = this.wiki.makeWidget(lib().parseSafeWikitext(this.wiki, source), {
      parentWidget: this,
      document: this.document,
    }) as unknown as Widget;
    widget.render(into as unknown as Element, null);
    return widget;
  }

  // ---- streaming ------------------------------------------------------------------------

  private onEvent(event: AgentEvent): void {
    this.live = lib().reduceLiveState(this.live, event);
    if (event.type === 'reply-started' || (event.type === 'snapshot' && this.live.streaming)) {
      this.startStreamView();
      if (event.type === 'snapshot') this.scheduleStreamRender();
    } else if (event.type === 'text-delta' || event.type === 'reasoning-delta') {
      this.scheduleStreamRender();
    } else if (event.type === 'reply-finished') {
      this.endStreamView();
      this.syncMessages();
    }
    if (event.type !== 'text-delta' && event.type !== 'reasoning-delta') this.updateStatus();
    // The action bars depend on whether a turn runs (Retry shows only on an idle last turn).
    if (event.type === 'status') this.syncTurnActions(this.listed.all, this.listed.window);
  }

  private startStreamView(): void {
    this.endStreamView();
    const doc = this.document as unknown as Doc;
    const element = el(doc, 'div', 'tc-ai-message tc-ai-message-assistant tc-ai-message-streaming');
    const meta = el(doc, 'div', 'tc-ai-message-meta');
    meta.appendChild(text(doc, this.lingo('Role/assistant')));
    if (this.live.streaming?.model) meta.appendChild(el(doc, 'span', 'tc-ai-message-model', this.live.streaming.model));
    element.appendChild(meta);
    const body = el(doc, 'div', 'tc-ai-message-body');
    const settled = el(doc, 'div', 'tc-ai-message-settled');
    body.appendChild(settled);
    body.appendChild(el(doc, 'div', 'tc-ai-message-tail'));
    element.appendChild(body);
    this.streamView = { element, seq: Infinity, settled: { element: settled, widgets: [], length: 0 } };
    this.list.appendChild(element);
    this.scrollToEnd();
  }

  private scheduleStreamRender(): void {
    if (this.streamTimer || !this.streamView) return;
    const wait = Math.max(0, STREAM_RENDER_INTERVAL_MS - (Date.now() - this.lastStreamRender));
    this.streamTimer = setTimeout(() => {
      this.streamTimer = undefined;
      this.renderStream();
    }, wait);
  }

  /** Re-render only the streaming message's body. */
  private renderStream(): void {
    const view = this.streamView;
    const streaming = this.live.streaming;
    if (!view?.settled || !streaming) return;
    this.lastStreamRender = Date.now();
    const doc = this.document as unknown as Doc;
    const body = view.element.querySelector('.tc-ai-message-body') as HTMLElement;
    if (streaming.reasoning && !view.element.querySelector('.tc-ai-message-reasoning')) {
      view.element.insertBefore(this.renderReasoning(doc, ''), body);
    }
    const reasoningText = view.element.querySelector('.tc-ai-message-reasoning-text');
    if (reasoningText) reasoningText.textContent = streaming.reasoning;
    // Blocks that can no longer change render once; only the last one is redone.
    const settled = lib().settledLength(streaming.text);
    if (settled > view.settled.length) {
      const block = el(doc, 'div', 'tc-ai-message-block');
      view.settled.element.appendChild(block);
      view.settled.widgets.push(this.renderWikitext(streaming.text.slice(view.settled.length, settled), block));
      view.settled.length = settled;
    }
    const tail = view.element.querySelector('.tc-ai-message-tail') as HTMLElement;
    view.body?.removeChildDomNodes();
    tail.textContent = '';
    view.body = this.renderWikitext(streaming.text.slice(view.settled.length), tail);
    this.scrollToEnd();
  }

  private endStreamView(): void {
    if (this.streamTimer) clearTimeout(this.streamTimer);
    this.streamTimer = undefined;
    if (!this.streamView) return;
    this.streamView.body?.removeChildDomNodes();
    for (const widget of this.streamView.settled?.widgets ?? []) widget.removeChildDomNodes();
    this.streamView.element.parentNode?.removeChild(this.streamView.element);
    this.streamView = undefined;
  }

  // ---- status and composer --------------------------------------------------------------

  private updateStatus(): void {
    const stored = String(this.wiki.getTiddler(this.chat)?.fields['agent-status'] ?? 'idle');
    const active = this.isActive();
    const status = active ? 'working' : $tw.browser && this.live.status ? this.live.status : stored;
    this.root.setAttribute('data-status', status);
    let line = this.lingo(`Status/${status}`);
    const retrying = active ? this.live.retrying : undefined;
    if (retrying) {
      line = this.lingo('Retrying')
        .replace('$attempt$', String(retrying.attempt))
        .replace('$max$', String(retrying.maxAttempts))
        .replace('$seconds$', String(Math.round(retrying.delayMs / 1000)));
    } else if (active && this.live.runningTools.length) {
      line = this.lingo('RunningTools').replace('$tools$', this.live.runningTools.join(', '));
    }
    const queued = this.live.queue.map((q) => q.text);
    if (queued.length) line += ' ' + this.lingo('Queued').replace('$count$', String(queued.length));
    this.queuedList.textContent = '';
    for (const message of queued) {
      const bubble = el(this.document as unknown as Doc, 'div', 'tc-ai-message tc-ai-message-user tc-ai-message-queued', message);
      this.queuedList.appendChild(bubble);
    }
    if (this.requestError) line += ' ' + this.requestError;
    this.statusLine.textContent = line;
    this.updateMeter();
    if (this.stopButton) this.stopButton.disabled = !active;
  }

  /** Tokens of the last prompt against the context window, by part. */
  private updateMeter(): void {
    let usage = this.live.context;
    if (!usage) {
      try {
        usage = JSON.parse(String(this.wiki.getTiddler(this.chat)?.fields['agent-context-usage'] ?? ''));
      } catch {
        usage = undefined;
      }
    }
    if (!usage) {
      this.meter.setAttribute('hidden', '');
      return;
    }
    this.meter.removeAttribute('hidden');
    this.meter.textContent = this.lingo('Meter')
      .replace('$total$', usage.total.toLocaleString('en'))
      .replace('$window$', usage.window.toLocaleString('en'))
      .replace('$system$', String(usage.system + usage.transient))
      .replace('$tools$', String(usage.tools))
      .replace('$history$', String(usage.history));
    const share = usage.window ? Math.min(100, Math.round((usage.total / usage.window) * 100)) : 0;
    this.meter.setAttribute('data-share', String(share));
    this.meter.setAttribute('title', `${share}%`);
  }

  private renderComposer(doc: Doc): HTMLElement {
    const initial = $tw.utils.parseStringArray(String(this.wiki.getTiddler(this.chat)?.fields['agent-draft-attachments'] ?? '')) ?? [];
    const composer = new Composer(
      {
        document: doc,
        lingo: (key) => this.lingo(key),
        suggest: (query) =>
          this.wiki
            .filterTiddlers(
              query ? '[!is[system]!has[draft.of]search:title<q>] -[has[agent]] -[has[agent-chat]] +[limit[8]]' : '[!is[system]!has[draft.of]!sort[modified]] -[has[agent]] -[has[agent-chat]] +[limit[8]]',
              this.makeFakeWidgetWithVariables({ q: query }),
            ),
        send: (message, attachments) => this.send(message, attachments),
        stop: () => this.stop(),
        isActive: () => this.isActive(),
        navigate: (title) => this.navigate(title),
      },
      this.chat,
      initial,
    );
    this.stopButton = composer.stopButton;
    this.composer = composer;
    // Messages that were queued when the page went away come back into the input.
    if (!this.isActive()) {
      for (const { text, attachments } of this.savedQueue()) composer.restore([text], attachments);
    }
    return composer.element;
  }

  private savedQueue(): { text: string; attachments: string[] }[] {
    try {
      const queue = JSON.parse(String(this.wiki.getTiddler(this.chat)?.fields['agent-queued'] ?? '[]'));
      return Array.isArray(queue) ? queue : [];
    } catch {
      return [];
    }
  }

  /** Stop the turn; messages queued behind it go back into the input rather than being lost. */
  private stop(): void {
    this.composer?.restore(this.live.queue.map((q) => q.text));
    void this.request(lib().getRunner().stop(this.chat));
  }

  private send(message: string, attachments: string[]): void {
    void this.request(lib().getRunner().send(this.chat, message, attachments));
    this.updateStatus();
    this.scrollToEnd(true);
  }

  /** Whether a turn runs, as the runner's events say. */
  private isActive(): boolean {
    return $tw.browser ? this.live.status === 'working' : false;
  }

  /** A runner request; a refusal (or an unreachable server) shows in the status line. */
  private request<T>(promise: Promise<T>): Promise<T | undefined> {
    this.requestError = '';
    return promise.catch((e: unknown) => {
      this.requestError = e instanceof Error ? e.message : String(e);
      this.updateStatus();
      return undefined;
    });
  }

  private navigate(title: string): void {
    this.dispatchEvent({ type: 'tm-navigate', navigateTo: title, navigateFromTitle: this.chat });
  }

  // ---- helpers --------------------------------------------------------------------------

  private lingo(key: string): string {
    return this.wiki.getTiddlerText(LANGUAGE + key, '') ?? '';
  }

  /**
   * Keep the newest message in view while the user is at the end of the list. The scroll
   * waits for the next frame, so a refresh never forces a synchronous layout.
   */
  private scrollToEnd(force = false): void {
    if (!$tw.browser) return;
    if (force) this.stuckToEnd = true;
    if (!this.stuckToEnd || this.scrollPending) return;
    this.scrollPending = true;
    requestAnimationFrame(() => {
      this.scrollPending = false;
      if (this.stuckToEnd) this.list.scrollTop = this.list.scrollHeight;
    });
  }
}

function el(doc: Doc, tag: string, className: string, content?: string): HTMLElement {
  const element = doc.createElement(tag);
  if (className) element.className = className;
  if (content !== undefined) element.textContent = content;
  return element;
}

function prettyJson(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

function text(doc: Doc, content: string): Text {
  return doc.createTextNode(content);
}

export { AiChatWidget as 'ai-chat' };

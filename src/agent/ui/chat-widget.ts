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
import {
  getRunner,
  initialLiveState,
  messagePrefix,
  parseSafeWikitext,
  reduceLiveState,
  type AgentEvent,
  type LiveChatState,
} from '$:/plugins/tiddlyagent/agent/lib.js';

const STREAM_RENDER_INTERVAL_MS = 100;
const LANGUAGE = '$:/plugins/tiddlyagent/agent/language/';

/** Unsent composer text survives a re-render of the widget (e.g. the story refreshing). */
const drafts = new Map<string, string>();

interface MessageView {
  element: HTMLElement;
  body?: Widget;
  seq: number;
}

type Doc = Document;

class AiChatWidget extends Widget {
  private chat = '';
  private pageSize = 50;
  private shown = 50;
  private root!: HTMLElement;
  private list!: HTMLElement;
  private olderButton!: HTMLButtonElement;
  private statusLine!: HTMLElement;
  private meter!: HTMLElement;
  private textarea?: HTMLTextAreaElement;
  private sendButton?: HTMLButtonElement;
  private stopButton?: HTMLButtonElement;
  private views = new Map<string, MessageView>();
  private live: LiveChatState = initialLiveState();
  private streamView?: MessageView;
  private streamTimer?: ReturnType<typeof setTimeout>;
  private lastStreamRender = 0;
  private unsubscribe?: () => void;

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
    this.list.appendChild(this.olderButton);
    this.statusLine = el(doc, 'div', 'tc-ai-chat-status');
    this.meter = el(doc, 'div', 'tc-ai-chat-meter');
    this.root.appendChild(this.list);
    const footer = el(doc, 'div', 'tc-ai-chat-footer');
    footer.appendChild(this.statusLine);
    footer.appendChild(this.meter);
    this.root.appendChild(footer);
    if ($tw.browser) {
      this.root.appendChild(this.renderComposer(doc));
      this.unsubscribe = getRunner().bus.subscribe(this.chat, (event) => this.onEvent(event));
      const runner = getRunner();
      if (runner.isActive(this.chat)) this.live = { ...initialLiveState(), status: 'working' };
    }
    this.syncMessages();
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
    const prefix = messagePrefix(this.chat);
    const touched = Object.keys(changed).filter((title) => title.startsWith(prefix));
    if (touched.length) this.syncMessages(touched);
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

  private messageTitles(): { title: string; seq: number }[] {
    const titles = this.wiki.filterTiddlers('[field:agent-chat<chat>]', this.makeFakeWidgetWithVariables({ chat: this.chat }));
    const out: { title: string; seq: number }[] = [];
    for (const title of titles) {
      const fields = this.wiki.getTiddler(title)?.fields;
      if (!fields) continue;
      out.push({ title, seq: Number(fields['agent-seq']) || 0 });
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
    const hidden = all.length - window.length;
    this.olderButton.textContent = hidden > 0 ? this.lingo('ShowOlder').replace('$count$', String(hidden)) : '';
    if (hidden > 0) this.olderButton.removeAttribute('hidden');
    else this.olderButton.setAttribute('hidden', '');
    this.scrollToEnd();
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
    const element = el(doc, 'div', `tc-ai-message tc-ai-message-${role}`);
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
    else if (role === 'tool') this.renderToolMessage(doc, title, fields, element, meta, bodyElement);
    else bodyElement.textContent = body;
    return view;
  }

  /** A tool call: a compact card, or, while it waits for the user, a confirmation or question card. */
  private renderToolMessage(doc: Doc, title: string, fields: Record<string, unknown>, element: HTMLElement, meta: HTMLElement, body: HTMLElement): void {
    const name = String(fields['tool-name'] ?? '');
    const status = String(fields['tool-status'] ?? '');
    const args = String(fields['tool-args'] ?? '{}');
    element.setAttribute('data-tool', name);
    element.setAttribute('data-tool-status', status);
    meta.appendChild(el(doc, 'span', 'tc-ai-tool-name', name));
    meta.appendChild(el(doc, 'span', `tc-ai-tool-status tc-ai-tool-status-${status}`, this.lingo(`ToolStatus/${status}`) || status));
    if (status === 'pending' && name === 'ask-question') return this.renderQuestion(doc, title, args, body);
    if (status === 'pending') return this.renderApproval(doc, title, name, args, String(fields.text ?? ''), body);
    const details = el(doc, 'details', 'tc-ai-tool-details');
    details.appendChild(el(doc, 'summary', '', this.lingo('ToolDetails')));
    details.appendChild(el(doc, 'pre', 'tc-ai-tool-args', prettyJson(args)));
    details.appendChild(el(doc, 'pre', 'tc-ai-tool-result', String(fields.text ?? '')));
    body.appendChild(details);
  }

  private renderApproval(doc: Doc, title: string, name: string, args: string, preview: string, body: HTMLElement): void {
    const card = el(doc, 'div', 'tc-ai-card tc-ai-approval');
    card.appendChild(el(doc, 'div', 'tc-ai-card-title', this.lingo('Approval/Title').replace('$tool$', name)));
    card.appendChild(el(doc, 'pre', 'tc-ai-tool-args', prettyJson(args)));
    if (preview) card.appendChild(el(doc, 'pre', 'tc-ai-approval-preview', preview));
    const buttons = el(doc, 'div', 'tc-ai-card-buttons');
    for (const choice of ['once', 'chat', 'always', 'deny'] as const) {
      const button = el(doc, 'button', `tc-ai-approve-${choice}`, this.lingo(`Approval/${choice}`)) as HTMLButtonElement;
      button.setAttribute('data-ai-action', `approve-${choice}`);
      button.addEventListener?.('click', () => void getRunner().decide(this.chat, title, choice));
      buttons.appendChild(button);
    }
    card.appendChild(buttons);
    body.appendChild(card);
  }

  private renderQuestion(doc: Doc, title: string, args: string, body: HTMLElement): void {
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
      void getRunner().answer(this.chat, title, answers);
    });
    const cancel = el(doc, 'button', 'tc-ai-question-cancel', this.lingo('Question/Cancel'));
    cancel.setAttribute('data-ai-action', 'dismiss');
    cancel.addEventListener?.('click', () => void getRunner().answer(this.chat, title, null));
    buttons.appendChild(submit);
    buttons.appendChild(cancel);
    card.appendChild(buttons);
    card.addEventListener?.('keydown', (event: Event) => {
      if ((event as KeyboardEvent).key === 'Escape') void getRunner().answer(this.chat, title, null);
    });
    body.appendChild(card);
  }

  private renderReasoning(doc: Doc, reasoning: string): HTMLElement {
    const details = el(doc, 'details', 'tc-ai-message-reasoning');
    details.appendChild(el(doc, 'summary', '', this.lingo('Reasoning')));
    details.appendChild(el(doc, 'div', 'tc-ai-message-reasoning-text', reasoning));
    return details;
  }

  /** Model output is rendered as wikitext under the safe rule set (ui/safe-render.ts). */
  private renderWikitext(source: string, into: HTMLElement): Widget {
    const widget = this.wiki.makeWidget(parseSafeWikitext(this.wiki, source), {
      parentWidget: this,
      document: this.document,
    }) as unknown as Widget;
    widget.render(into as unknown as Element, null);
    return widget;
  }

  // ---- streaming ------------------------------------------------------------------------

  private onEvent(event: AgentEvent): void {
    this.live = reduceLiveState(this.live, event);
    if (event.type === 'reply-started') {
      this.startStreamView();
    } else if (event.type === 'text-delta' || event.type === 'reasoning-delta') {
      this.scheduleStreamRender();
    } else if (event.type === 'reply-finished') {
      this.endStreamView();
      this.syncMessages();
    }
    if (event.type !== 'text-delta' && event.type !== 'reasoning-delta') this.updateStatus();
  }

  private startStreamView(): void {
    this.endStreamView();
    const doc = this.document as unknown as Doc;
    const element = el(doc, 'div', 'tc-ai-message tc-ai-message-assistant tc-ai-message-streaming');
    const meta = el(doc, 'div', 'tc-ai-message-meta');
    meta.appendChild(text(doc, this.lingo('Role/assistant')));
    if (this.live.streaming?.model) meta.appendChild(el(doc, 'span', 'tc-ai-message-model', this.live.streaming.model));
    element.appendChild(meta);
    element.appendChild(el(doc, 'div', 'tc-ai-message-body'));
    this.streamView = { element, seq: Infinity };
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
    if (!view || !streaming) return;
    this.lastStreamRender = Date.now();
    const doc = this.document as unknown as Doc;
    const stick = this.isNearEnd();
    view.body?.removeChildDomNodes();
    const body = view.element.querySelector('.tc-ai-message-body') as HTMLElement;
    body.textContent = '';
    if (streaming.reasoning && !view.element.querySelector('.tc-ai-message-reasoning')) {
      view.element.insertBefore(this.renderReasoning(doc, ''), body);
    }
    const reasoningText = view.element.querySelector('.tc-ai-message-reasoning-text');
    if (reasoningText) reasoningText.textContent = streaming.reasoning;
    view.body = this.renderWikitext(streaming.text, body);
    if (stick) this.scrollToEnd(true);
  }

  private endStreamView(): void {
    if (this.streamTimer) clearTimeout(this.streamTimer);
    this.streamTimer = undefined;
    if (!this.streamView) return;
    this.streamView.body?.removeChildDomNodes();
    this.streamView.element.parentNode?.removeChild(this.streamView.element);
    this.streamView = undefined;
  }

  // ---- status and composer --------------------------------------------------------------

  private updateStatus(): void {
    const stored = String(this.wiki.getTiddler(this.chat)?.fields['agent-status'] ?? 'idle');
    const active = $tw.browser ? getRunner().isActive(this.chat) : false;
    const status = active ? 'working' : stored;
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
    const queued = active ? getRunner().queued(this.chat).length : 0;
    if (queued) line += ' ' + this.lingo('Queued').replace('$count$', String(queued));
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
    const composer = el(doc, 'div', 'tc-ai-chat-composer');
    const textarea = el(doc, 'textarea', 'tc-ai-chat-input') as HTMLTextAreaElement;
    textarea.rows = 3;
    textarea.placeholder = this.lingo('Placeholder');
    textarea.value = drafts.get(this.chat) ?? '';
    textarea.addEventListener('input', () => drafts.set(this.chat, textarea.value));
    textarea.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        this.send();
      } else if (event.key === 'Escape' && getRunner().isActive(this.chat)) {
        event.preventDefault();
        getRunner().stop(this.chat);
      }
    });
    const send = el(doc, 'button', 'tc-ai-chat-send', this.lingo('Send')) as HTMLButtonElement;
    send.title = this.lingo('SendHint');
    send.addEventListener('click', () => this.send());
    const stop = el(doc, 'button', 'tc-ai-chat-stop', this.lingo('Stop')) as HTMLButtonElement;
    stop.addEventListener('click', () => getRunner().stop(this.chat));
    const buttons = el(doc, 'div', 'tc-ai-chat-buttons');
    buttons.appendChild(send);
    buttons.appendChild(stop);
    composer.appendChild(textarea);
    composer.appendChild(buttons);
    this.textarea = textarea;
    this.sendButton = send;
    this.stopButton = stop;
    return composer;
  }

  private send(): void {
    const textarea = this.textarea;
    if (!textarea) return;
    const message = textarea.value.trim();
    if (!message) return;
    textarea.value = '';
    drafts.delete(this.chat);
    void getRunner().send(this.chat, message);
    this.updateStatus();
    this.scrollToEnd(true);
  }

  // ---- helpers --------------------------------------------------------------------------

  private lingo(key: string): string {
    return this.wiki.getTiddlerText(LANGUAGE + key, '') ?? '';
  }

  private isNearEnd(): boolean {
    return this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
  }

  private scrollToEnd(force = false): void {
    if (!$tw.browser) return;
    if (force || this.isNearEnd()) this.list.scrollTop = this.list.scrollHeight;
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

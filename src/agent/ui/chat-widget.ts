/*\
<$ai-chat chat=<title> page-size="50"/>: a chat with its messages, the streaming reply,
a status line and the composer.

Why a JavaScript widget and not a wikitext list: every wiki write refreshes the whole widget
tree, so a list of N messages costs O(N) per write. This widget keeps one DOM node per
message and, on a wiki change, touches only the messages that changed. Streamed text
arrives through the runner's events and re-renders only the streaming bubble, at most
every 100 ms.

This module wires the parts to the wiki and the runner; each part is one concept:
message-list.ts (the window of messages), message-view.ts (one message), cards.ts (approval
and question cards, the changes view), turn-actions.ts (the bar under each turn),
stream-view.ts (the streaming bubble), status-bar.ts (status line, queue, meter), cost-view.ts
(the turn's and the chat's cost beside the meter), export-menu.ts (the chat's Export control),
todo-view.ts (the chat's todo list) and composer.ts (the input). The UI talks only to the ChatRunner interface: its live state comes
from the runner's events, folded by the one reducer (engine/live-state.ts), and every action
is a runner request.

Showing a chat does not wait for the library module (engine, providers, tools; compiling it
takes about 10 ms): the messages render with the safe wikitext rules and the reducer bundled
here, and the widget subscribes to the runner, which compiles the library, after the first
frame.
\*/
import { widget as Widget } from '$:/core/modules/widgets/widget.js';
import type { IChangedTiddlers, IParseTreeNode } from 'tiddlywiki';
import type { AgentEvent } from '$:/plugins/tiddlyagent/agent/page.js';
import { initialLiveState, reduceLiveState, type LiveChatState } from '../engine/live-state';
import { page } from './library';
import { hasScheme, isPart } from '../store/chat-parts';
import { parseSafeWikitext } from './safe-render';
import { PromptTools } from './prompt-preview';
import { copyChatButton } from './copy-chat';
import { el, RenderedTree, type ChatContext } from './chat-context';
import { Composer } from './composer';
import { COMMAND_EVENT, type ChatCommand } from './chat-command';
import { lingo, LANGUAGE_SETTING } from './lingo';
import { CostView } from './cost-view';
import { ExportMenu } from './export-menu';
import { MessageList } from './message-list';
import { StatusBar } from './status-bar';
import { StreamView } from './stream-view';
import { SubAgentsView } from './sub-agents-view';
import { TodoView } from './todo-view';
import { requestErrorText } from './runner-error';
import { saveImages, whenSaved } from './pasted-images';

/**
 * Run `fn` right after the next frame, or (`idle`) when the page is idle after it, within
 * 200 ms: background work such as the older messages of a window must not delay the first
 * frame or the user's input. Returns a cancel function.
 */
function afterFrame(fn: () => void, idle = false): () => void {
  let cancelLater: (() => void) | undefined;
  const frame = requestAnimationFrame(() => {
    if (idle && typeof requestIdleCallback === 'function') {
      const handle = requestIdleCallback(fn, { timeout: 200 });
      cancelLater = () => cancelIdleCallback(handle);
    } else {
      const timer = setTimeout(fn, 0);
      cancelLater = () => clearTimeout(timer);
    }
  });
  return () => {
    cancelAnimationFrame(frame);
    cancelLater?.();
  };
}

/** Set to a chat's title by the New chat actions (ui/new-chat-button.tid and the others): its composer gets the cursor when it opens. */
const NEW_CHAT = '$:/temp/tiddlyagent/new-chat';
/** TiddlyWiki's history: its `current-tiddler` is the tiddler the user last opened. */
const HISTORY = '$:/HistoryList';

class AiChatWidget extends Widget {
  private chat = '';
  private pageSize = 50;
  private ctx!: ChatContext;
  private root!: HTMLElement;
  private list!: MessageList;
  private status!: StatusBar;
  private cost!: CostView;
  private todo!: TodoView;
  private subAgents!: SubAgentsView;
  private composer?: Composer;
  private stream?: StreamView;
  private live: LiveChatState = initialLiveState();
  /** Why the last request to the runner was refused, shown in the status line. */
  private requestError = '';
  /** Ends the subscription to the runner, or cancels it before it starts. */
  private unsubscribe?: () => void;

  override render(parent: Element, nextSibling: Element | null): void {
    this.parentDomNode = parent;
    this.computeAttributes();
    this.execute();
    this.ctx = this.makeContext();
    const doc = this.ctx.document;
    this.root = el(doc, 'div', 'tc-ai-chat');
    this.root.setAttribute('data-chat', this.chat);
    this.list = new MessageList(this.ctx, {
      pageSize: this.pageSize,
      isActive: () => this.isActive(),
      afterFrame: $tw.browser ? (fn) => afterFrame(fn, true) : undefined,
    });
    this.status = new StatusBar(this.ctx);
    this.cost = new CostView(this.ctx);
    this.cost.update(this.list.messages.map((m) => m.title));
    this.status.footer.appendChild(this.cost.element);
    // In Node the chat renders once, statically: nothing to ask the runner.
    const prompt = this.ctx.browser ? new PromptTools(this.ctx) : undefined;
    if (prompt) this.status.footer.appendChild(prompt.bar);
    if (prompt) this.status.footer.appendChild(copyChatButton(this.ctx, () => this.list.messages));
    if (this.ctx.browser) this.status.footer.appendChild(new ExportMenu(this.ctx, (event) => this.dispatchEvent(event)).element);
    this.todo = new TodoView(this.ctx);
    this.subAgents = new SubAgentsView(this.ctx);
    this.root.appendChild(this.list.element);
    this.root.appendChild(this.status.queued);
    this.root.appendChild(this.status.footer);
    if (prompt) this.root.appendChild(prompt.panel);
    this.root.appendChild(this.todo.element);
    this.root.appendChild(this.subAgents.element);
    if ($tw.browser) {
      this.root.appendChild(this.renderComposer());
      // The chat keyboard shortcuts (action-chat-widget.ts).
      this.root.addEventListener(COMMAND_EVENT, (event) => this.onCommand((event as CustomEvent<ChatCommand>).detail));
    }
    this.list.sync();
    this.cost.render(this.list.messages);
    if ($tw.browser) this.unsubscribe = afterFrame(() => this.subscribe());
    this.updateStatus();
    parent.insertBefore(this.root, nextSibling);
    this.domNodes.push(this.root);
    if (this.openedFromLink()) this.list.followEnd(true);
    if ($tw.browser && this.wiki.getTiddlerText(NEW_CHAT) === this.chat) afterFrame(() => this.focusNewChat());
  }

  /**
   * Whether the chat's tiddler is the one the user just opened (TiddlyWiki's history names it):
   * it then shows its newest messages, like any chat app, rather than the start of its window.
   */
  private openedFromLink(): boolean {
    const story = this.getVariable('storyTiddler');
    return !!$tw.browser && !!story && this.wiki.getTiddler(HISTORY)?.fields['current-tiddler'] === story;
  }

  /** A chat the user just made (every New chat action names it in NEW_CHAT): the cursor goes into its composer. */
  private focusNewChat(): void {
    if (this.wiki.getTiddlerText(NEW_CHAT) !== this.chat) return;
    this.wiki.deleteTiddler(NEW_CHAT);
    this.composer?.focus();
  }

  /** Follow the runner's events; a turn already running sends its live state first (a snapshot). */
  private subscribe(): void {
    this.unsubscribe = page()
      .getRunner()
      .subscribe(this.chat, (event) => this.onEvent(event));
    // Messages that were queued when the page went away come back into the input.
    if (!this.isActive()) for (const { text, attachments } of this.savedQueue()) this.composer?.restore([text], attachments);
  }

  override execute(): void {
    this.chat = this.getAttribute('chat', this.getVariable('currentTiddler'));
    this.pageSize = Math.max(1, Number(this.getAttribute('page-size', '50')) || 50);
  }

  override refresh(changed: IChangedTiddlers): boolean {
    const attrs = this.computeAttributes();
    if (attrs.chat || attrs['page-size'] || changed[LANGUAGE_SETTING]) {
      this.teardown();
      this.refreshSelf();
      return true;
    }
    const titles = Object.keys(changed);
    const touched = this.list.touched(titles);
    if (touched.length) {
      this.list.sync(touched);
      this.handOver();
    } else if (titles.some((title) => this.isOwnJournal(title))) {
      this.list.syncBars();
    }
    const repriced = this.cost.refreshPricing(changed, this.list.messages);
    if (repriced) this.list.showCosts();
    else this.cost.update(touched);
    if (repriced || touched.length) this.cost.render(this.list.messages);
    if (changed[this.chat]) this.updateStatus();
    this.todo.refresh(changed);
    this.subAgents.refresh(changed);
    this.list.refresh(changed);
    return false;
  }

  /** Whether a changed title is (or, deleted, was) a journal of this chat: another chat's, whose title starts with this one's, is not. */
  private isOwnJournal(title: string): boolean {
    const fields = this.wiki.getTiddler(title)?.fields;
    return fields ? isPart('journals', this.chat, title, fields) : hasScheme('journals', this.chat, title);
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
    this.endStream();
    this.list?.destroy();
  }

  // ---- the runner's events --------------------------------------------------------------

  private onEvent(event: AgentEvent): void {
    this.live = reduceLiveState(this.live, event);
    switch (event.type) {
      case 'text-delta':
      case 'reasoning-delta':
        // Only the bubble changes; it renders on its own schedule.
        if (this.live.streaming) this.stream?.update(this.live.streaming);
        return;
      case 'reply-started':
        this.startStream();
        break;
      case 'snapshot':
        // The bars depend on whether a turn runs (Retry shows only on an ended last turn).
        this.list.syncBars();
        if (this.live.streaming) {
          this.startStream();
          this.stream!.update(this.live.streaming);
        } else if (this.stream && !this.stream.finished) {
          this.endStream();
        }
        break;
      case 'reply-finished':
        this.finishStream(event.title);
        break;
      case 'status':
        this.list.syncBars();
        break;
    }
    this.updateStatus();
  }

  private startStream(): void {
    this.endStream();
    this.stream = new StreamView(this.ctx, this.live.streaming?.model);
    this.list.setEndAnchor(this.stream.element);
  }

  /** The reply was written (or dropped): the bubble goes once the message's own view is there. */
  private finishStream(title: string | undefined): void {
    const stream = this.stream;
    stream?.finish(title, () => {
      if (this.stream === stream) this.endStream();
    });
    // Written in this page, the tiddler is already in the wiki; from a server, it follows.
    if (title && this.ctx.wiki.getTiddler(title)) this.list.sync([title]);
    this.handOver();
  }

  private handOver(): void {
    const stream = this.stream;
    if (stream?.finished && (!stream.awaiting || this.list.has(stream.awaiting))) this.endStream();
  }

  private endStream(): void {
    this.stream?.destroy();
    this.stream = undefined;
    this.list?.setEndAnchor(null);
  }

  // ---- status and composer --------------------------------------------------------------

  private updateStatus(): void {
    this.root.setAttribute('data-status', this.status.update(this.live, this.requestError));
    if (this.composer) this.composer.stopButton.disabled = !this.isActive();
  }

  private renderComposer(): HTMLElement {
    const initial = $tw.utils.parseStringArray(String(this.wiki.getTiddler(this.chat)?.fields['agent-draft-attachments'] ?? '')) ?? [];
    this.composer = new Composer(
      {
        document: this.ctx.document,
        lingo: (key) => this.ctx.lingo(key),
        suggest: (query) =>
          this.ctx.filter(
            query
              ? '[!is[system]!has[draft.of]search:title<q>] -[has[agent]] -[has[agent-chat]] +[limit[8]]'
              : '[!is[system]!has[draft.of]!sort[modified]] -[has[agent]] -[has[agent-chat]] +[limit[8]]',
            { q: query },
          ),
        send: (message, attachments) => this.send(message, attachments),
        stop: () => this.stop(),
        isActive: () => this.isActive(),
        navigate: (title) => this.ctx.navigate(title),
        attachFiles: (files) =>
          saveImages(files, { wiki: this.wiki, lingo: (key) => this.ctx.lingo(key), notify: (t) => this.status.notify(t), now: () => new Date() }),
      },
      this.chat,
      initial,
    );
    return this.composer.element;
  }

  private onCommand(command: ChatCommand): void {
    if (command === 'send') this.composer?.send();
    else if (command === 'stop' && this.isActive()) this.stop();
    else if (command === 'focus') this.composer?.focus();
  }

  /** The words of messages queued when the page went away (the chat's `agent-queued`). */
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
    void this.request(page().getRunner().submit({ kind: 'stop', chat: this.chat }));
  }

  private send(message: string, attachments: string[]): void {
    const runner = page().getRunner();
    // The server reads attachments from its own store: a pasted image must have reached it first.
    const saved = runner.where === 'server' ? whenSaved(this.wiki, $tw.syncer as never, attachments, this.ctx.lingo('Composer/ImageNotSaved')) : undefined;
    void this.request((saved ?? Promise.resolve()).then(() => runner.submit({ kind: 'send', chat: this.chat, text: message, attachments })));
    this.updateStatus();
    // The user's message: in the story river, the window follows the reply.
    this.list.followEnd();
  }

  /** Whether a turn runs, as the runner's events say. */
  private isActive(): boolean {
    return !!$tw.browser && this.live.status === 'working';
  }

  /** A runner request; a refusal (or an unreachable server) shows in the status line. */
  private request<T>(promise: Promise<T>): Promise<T | undefined> {
    this.requestError = '';
    this.status.notify('');
    return promise.catch((e: unknown) => {
      this.requestError = requestErrorText(this.wiki, e);
      this.updateStatus();
      return undefined;
    });
  }

  private makeContext(): ChatContext {
    const ctx: ChatContext = {
      chat: this.chat,
      wiki: this.wiki,
      document: this.document as unknown as Document,
      browser: !!$tw.browser,
      lingo: (key) => lingo(this.wiki, key),
      runner: () => page().getRunner(),
      request: (promise) => this.request(promise),
      notify: (text) => this.status.notify(text),
      navigate: (title) => this.dispatchEvent({ type: 'tm-navigate', navigateTo: title, navigateFromTitle: this.chat }),
      filter: (filter, variables) => this.wiki.filterTiddlers(filter, this.makeFakeWidgetWithVariables(variables)),
      renderTree: (tree: IParseTreeNode[], into: HTMLElement) => {
        const widget = this.wiki.makeWidget({ tree } as never, { parentWidget: this, document: this.document }) as unknown as Widget;
        widget.render(into as unknown as Element, null);
        return new RenderedTree(widget, tree);
      },
      renderWikitext: (source, into) => ctx.renderTree(parseSafeWikitext(this.wiki as never, source).tree, into),
      replyCost: (fields) => this.cost?.replyText(fields),
      followReply: () => this.list.followEnd(),
    };
    return ctx;
  }
}

export { AiChatWidget as 'ai-chat' };

/*\
Sub-agents (spawn-agent): a task runs in a hidden child chat (`agent-parent`, `agent-hidden`)
with its own agent definition, tools and approvals, through the same runner and operation
queue as any chat; the call waits until the child's turn is over (an approval or a question
the child needs waits for the user, whose card shows in the parent's chat) and returns its
final answer. Limits, from the parent's agent definition: how deep children nest
(`agent-spawn-depth`, default 2), how many run at once for one parent turn
(`agent-spawn-concurrency`, default 3), and how long one may take (`agent-spawn-timeout`,
enforced by the tool's time limit). A child runs the parent's own definition unless the
model names one the user listed in the parent's `agent-spawn-agents`: another definition may
have more tools or laxer approvals, so the model never picks one by itself. When the call's signal aborts (the parent's Stop, or
its time limit) the child is stopped too, and so, in turn, are its own children.
\*/
import type { AgentEvent } from '../../engine/events';
import type { ChatStore } from '../../store/chat-store';
import type { ChatStatus } from '../../store/schemas';
import type { SpawnRequest, SpawnResult, SubAgentPort } from '../../tools/tool';
import type { TurnResult } from '../../engine/loop';

export const DEFAULT_SPAWN_DEPTH = 2;
export const DEFAULT_SPAWN_CONCURRENCY = 3;
const ENDED: readonly ChatStatus[] = ['completed', 'failed', 'canceled', 'interrupted'];
/** A chain of `agent-parent` longer than this is a loop someone made by hand. */
const MAX_CHAIN = 50;

/** What sub-agents need of the runner. */
export interface SubAgentRunner {
  store: ChatStore;
  enqueue(command: { kind: 'send'; chat: string; text: string }): { done: Promise<TurnResult> };
  submit(command: { kind: 'stop'; chat: string }): Promise<unknown>;
  subscribe(chat: string, listener: (event: AgentEvent) => void): () => void;
}

/** A spawn the limits or the definition refuse: the tool reports it, nothing is created. */
export class SpawnRefused extends Error {
  override name = 'SpawnRefused';
}

export class SubAgents implements SubAgentPort {
  /** Children running now, per parent chat (one turn runs per chat, so this is per turn). */
  private running = new Map<string, number>();

  constructor(private readonly runner: SubAgentRunner) {}

  async spawn(request: SpawnRequest): Promise<SpawnResult> {
    const { store } = this.runner;
    const parentAgent = store.readAgent(request.parentAgent);
    const { depth, root } = this.chain(request.parent);
    // The user's own chat sets how deep the whole tree may go; a child's definition cannot deepen it.
    const maxDepth = this.rootAgent(root)?.['agent-spawn-depth'] ?? parentAgent['agent-spawn-depth'] ?? DEFAULT_SPAWN_DEPTH;
    const maxChildren = parentAgent['agent-spawn-concurrency'] ?? DEFAULT_SPAWN_CONCURRENCY;
    if (depth >= maxDepth)
      throw new SpawnRefused(`Sub-agents nest at most ${maxDepth} deep ("agent-spawn-depth"), and this chat is already ${depth} deep. Do the task yourself.`);
    const busy = this.running.get(request.parent) ?? 0;
    if (busy >= maxChildren)
      throw new SpawnRefused(`At most ${maxChildren} sub-agents run at once for one turn ("agent-spawn-concurrency"); wait for one to finish.`);
    const agent = request.agent?.trim() || request.parentAgent;
    if (agent !== request.parentAgent && !parentAgent['agent-spawn-agents'].includes(agent)) {
      const allowed = parentAgent['agent-spawn-agents'];
      throw new SpawnRefused(
        `A sub-agent runs your own definition${allowed.length ? ` or one of: ${allowed.join(', ')}` : ''} ("agent-spawn-agents" of "${request.parentAgent}"); "${agent}" is not allowed.`,
      );
    }
    try {
      store.readAgent(agent);
    } catch (e) {
      throw new SpawnRefused(e instanceof Error ? e.message : String(e));
    }
    if (request.signal.aborted) throw new SpawnRefused('The call was stopped before the sub-agent started.');

    const child = store.createSubAgentChat(request.parent, agent, `Sub-task: ${oneLine(request.task, 60)}`);
    this.running.set(request.parent, busy + 1);
    const stopChild = () => void this.runner.submit({ kind: 'stop', chat: child }).catch(() => undefined);
    request.signal.addEventListener('abort', stopChild, { once: true });
    try {
      const text = request.context?.trim() ? `${request.task}\n\n<context>\n${request.context.trim()}\n</context>` : request.task;
      const first = await this.runner.enqueue({ kind: 'send', chat: child, text }).done;
      const status = ENDED.includes(first.status) ? first.status : await this.ended(child, request.signal);
      return { chat: child, status, answer: this.answer(child, status, first.error) };
    } finally {
      request.signal.removeEventListener('abort', stopChild);
      const left = (this.running.get(request.parent) ?? 1) - 1;
      if (left > 0) this.running.set(request.parent, left);
      else this.running.delete(request.parent);
    }
  }

  /** How many `agent-parent` links lead from `chat` to the user's chat, and that chat. */
  private chain(chat: string): { depth: number; root: string } {
    let depth = 0;
    let root = chat;
    for (
      let at = this.runner.store.wiki.getFields(chat)?.['agent-parent'];
      at && depth < MAX_CHAIN;
      at = this.runner.store.wiki.getFields(at)?.['agent-parent']
    ) {
      depth++;
      root = at;
    }
    return { depth, root };
  }

  private rootAgent(root: string) {
    try {
      return this.runner.store.readAgent(this.runner.store.readChat(root).agent);
    } catch {
      return undefined;
    }
  }

  /** A child that waits for the user (approval, question) ends when its status says so, or when the call is aborted. */
  private ended(child: string, signal: AbortSignal): Promise<ChatStatus> {
    return new Promise((resolve) => {
      let settled = false;
      let unsubscribe: (() => void) | undefined;
      const done = (status: ChatStatus) => {
        if (settled) return;
        settled = true;
        unsubscribe?.();
        signal.removeEventListener('abort', onAbort);
        resolve(status);
      };
      const onAbort = () => done('canceled');
      signal.addEventListener('abort', onAbort, { once: true });
      unsubscribe = this.runner.subscribe(child, (event) => {
        const status = event.type === 'status' ? event.status : event.type === 'snapshot' ? event.state.status : undefined;
        if (status && ENDED.includes(status)) done(status);
      });
      // The snapshot may have ended it inside subscribe(), before its unsubscribe was known.
      if (settled) unsubscribe();
    });
  }

  /** The child's final answer: its last reply, or why it has none. */
  private answer(child: string, status: ChatStatus, error?: string): string {
    const messages = this.runner.store.listMessages(child);
    const reply = [...messages]
      .reverse()
      .find((m) => m.role === 'assistant' && m.text.trim())
      ?.text.trim();
    if (status === 'completed') return reply ?? '(The sub-agent finished without an answer.)';
    const why = error ?? [...messages].reverse().find((m) => m.role === 'error')?.text ?? status;
    return `The sub-agent ended ${status}: ${why}${reply ? `\nIts last reply: ${reply}` : ''}`;
  }
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/*\
RemoteRunner: the ChatRunner of a page served by the Node.js server edition. Every request
goes to the server's `agent/…` routes (with TiddlyWiki's CSRF header; the server checks who
may do what) and every turn runs there; live events arrive over the page's push channel
(runner/push-channel.ts) and go through the same event bus and reducer as a local turn's.
\*/
import { EventBus, type AgentEvent, type AgentEventListener } from '../engine/events';
import { initialLiveState, type LiveChatState } from '../engine/live-state';
import type { ChatStatus } from '../store/schemas';
import {
  RunnerError,
  type ApprovalChoice,
  type ApprovalScope,
  type ChatRunner,
  type DeleteTurnOptions,
  type McpTestResult,
  type PromptPreview,
  type RollbackResult,
  type RunnerErrorCode,
} from './chat-runner';
import type { PushChannel, ServerEditionMark } from './push-channel';
import type { ProviderTestRequest, ProviderTestResult } from './provider-test';
import type { EditRequest } from '../engine/edit-request';

interface PushChannelModule {
  pushChannel(): PushChannel | undefined;
  serverEditionMark(): ServerEditionMark | undefined;
}

function channelModule(): PushChannelModule {
  return require('$:/plugins/tiddlyagent/agent/runner/push-channel.js') as PushChannelModule;
}

/** The server edition's mark on this page, if a server with the server plugin served it. */
export function serverEditionMark(): ServerEditionMark | undefined {
  return channelModule().serverEditionMark();
}

const CODES: Record<number, RunnerErrorCode> = {
  400: 'bad-request',
  401: 'forbidden',
  403: 'forbidden',
  404: 'not-found',
  409: 'conflict',
  413: 'bad-request',
};

export class RemoteRunner implements ChatRunner {
  readonly where = 'server' as const;
  readonly bus = new EventBus();
  private readonly channel?: PushChannel;

  constructor(private readonly mark: ServerEditionMark) {
    this.channel = channelModule().pushChannel();
    this.channel?.onAgentEvent((event) => this.bus.emit(event as AgentEvent));
  }

  subscribe(chat: string, listener: AgentEventListener): () => void {
    const off = this.bus.subscribe(chat, listener, () => this.quietState(chat));
    this.channel?.watch(chat);
    return () => {
      off();
      this.channel?.unwatch(chat);
    };
  }

  send(chat: string, text: string, attachments: string[] = []): Promise<unknown> {
    return this.post('send', { chat, text, attachments });
  }

  stop(chat: string): Promise<unknown> {
    return this.post('stop', { chat });
  }

  decide(chat: string, message: string, choice: ApprovalChoice, scope?: ApprovalScope, text?: string): Promise<unknown> {
    return this.post('decide', { chat, message, choice, ...(scope ? { scope } : {}), text });
  }

  revokeRule(chat: string, message: string): Promise<{ revoked: boolean }> {
    return this.post('revoke-rule', { chat, message }) as Promise<{ revoked: boolean }>;
  }

  answer(chat: string, message: string, answers: string[] | null): Promise<unknown> {
    return this.post('answer', { chat, message, answers });
  }

  retry(chat: string, userMessage: string): Promise<unknown> {
    return this.post('retry', { chat, message: userMessage });
  }

  edit(chat: string, userMessage: string, text: string): Promise<unknown> {
    return this.post('edit', { chat, message: userMessage, text });
  }

  switchBranch(chat: string, at: number, version: number): Promise<unknown> {
    return this.post('switch-branch', { chat, at, version });
  }

  deleteTurn(chat: string, userMessage: string, options: DeleteTurnOptions = {}): Promise<unknown> {
    return this.post('delete-turn', { chat, message: userMessage, ...(options.keepChanges ? { keepChanges: true } : {}) });
  }

  rollback(chat: string, userMessage: string, force = false): Promise<RollbackResult> {
    return this.post('rollback', { chat, message: userMessage, force }) as Promise<RollbackResult>;
  }

  rename(chat: string, newTitle: string): Promise<unknown> {
    return this.post('rename', { chat, to: newTitle });
  }

  deleteChat(chat: string): Promise<unknown> {
    return this.post('delete-chat', { chat });
  }

  compact(chat: string): Promise<unknown> {
    return this.post('compact', { chat });
  }

  previewPrompt(chat: string): Promise<PromptPreview> {
    return this.post('preview', { chat }) as Promise<PromptPreview>;
  }

  testMcpServer(name: string): Promise<McpTestResult> {
    return this.post('mcp-test', { server: name }) as Promise<McpTestResult>;
  }

  /** The server tests with its own key (its environment): a key typed here is never sent. */
  testProvider(request: ProviderTestRequest): Promise<ProviderTestResult> {
    return this.post('provider-test', {
      profile: request.profile,
      api: request.api,
      baseUrl: request.baseUrl,
      model: request.model,
      keyName: request.keyName,
    }) as Promise<ProviderTestResult>;
  }

  proposeEdit(request: EditRequest, signal?: AbortSignal): Promise<{ text: string }> {
    return this.post('propose-edit', { ...request }, signal) as Promise<{ text: string }>;
  }

  /** Before the server's snapshot arrives: what the chat tiddler (kept in step by the push channel) says. */
  private quietState(chat: string): LiveChatState {
    const status = ($tw.wiki.getTiddler(chat)?.fields['agent-status'] as ChatStatus | undefined) || 'idle';
    return { ...initialLiveState(), status };
  }

  private async post(action: string, body: { chat?: string; [key: string]: unknown }, signal?: AbortSignal): Promise<unknown> {
    if (body.chat) await savedToServer(body.chat);
    let response: Response;
    try {
      response = await fetch(`${this.mark.prefix}agent/${action}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'TiddlyWiki' },
        body: JSON.stringify(body),
        credentials: 'same-origin',
        signal,
      });
    } catch (e) {
      if (signal?.aborted) throw new RunnerError('conflict', 'Stopped.');
      throw new RunnerError('unavailable', `The wiki server cannot be reached (${e instanceof Error ? e.message : String(e)}).`);
    }
    const data = (await response.json().catch(() => ({}))) as { error?: string };
    if (!response.ok) {
      const code = CODES[response.status] ?? 'unavailable';
      const why =
        data.error ||
        (response.status === 401 || response.status === 403
          ? 'You are not allowed to do this on this wiki (sign in as a user who may edit it).'
          : `${response.status} ${response.statusText}`);
      throw new RunnerError(code, why);
    }
    return data;
  }
}

interface Syncer {
  tiddlerInfo: Record<string, { changeCount: number } | undefined>;
}

/**
 * A chat made in this page a moment ago ("New chat") reaches the server with the syncer's
 * next save; a request about it waits for that (at most a few seconds) instead of failing
 * with "does not exist".
 */
async function savedToServer(chat: string, timeoutMs = 5000): Promise<void> {
  const syncer = ($tw as unknown as { syncer?: Syncer }).syncer;
  if (!syncer || !$tw.wiki.tiddlerExists(chat)) return;
  const started = Date.now();
  while ((syncer.tiddlerInfo[chat]?.changeCount ?? -1) < $tw.wiki.getChangeCount(chat) && Date.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/*\
RemoteRunner: the ChatRunner of a page served by the Node.js server edition. Every request
goes to the server's `agent/…` routes (with TiddlyWiki's CSRF header; the server checks who
may do what) and every turn runs there; live events arrive over the page's push channel
(runner/startup/push-channel.ts) and go through the same event bus and reducer as a local turn's.
\*/
import { EventBus, type AgentEvent, type AgentEventListener } from '../engine/events';
import { initialLiveState, type LiveChatState } from '../engine/live-state';
import type { ChatStatus } from '../store/schemas';
import { RunnerError, type ChatRunner, type RefusalReason, type CommandResults, type QueryResults, type RunnerErrorCode } from './chat-runner';
import type { Command, CommandKind, Query, QueryKind } from './commands';
import { wireFields } from './command-wire';
import type { PushChannel, ServerEditionMark } from './startup/push-channel';
import { refuse } from './refusals';

interface PushChannelModule {
  pushChannel(): PushChannel | undefined;
  serverEditionMark(): ServerEditionMark | undefined;
}

function channelModule(): PushChannelModule {
  return require('$:/plugins/tiddlyagent/agent/runner/startup/push-channel.js') as PushChannelModule;
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

  /** Every command is the same request: POST agent/<kind> with its fields (runner/command-wire.ts); the server validates it. */
  submit<K extends CommandKind>(command: Command<K>): Promise<CommandResults[K]> {
    return this.post(command.kind, wireFields(command)) as Promise<CommandResults[K]>;
  }

  /** The same for queries; the server tests a provider with its own key (a key typed here is never sent). */
  query<K extends QueryKind>(query: Query<K>, signal?: AbortSignal): Promise<QueryResults[K]> {
    return this.post(query.kind, wireFields(query), signal) as Promise<QueryResults[K]>;
  }

  /** Before the server's snapshot arrives: what the chat tiddler (kept in step by the push channel) says. */
  private quietState(chat: string): LiveChatState {
    const status = ($tw.wiki.getTiddler(chat)?.fields['agent-status'] as ChatStatus | undefined) || 'idle';
    return { ...initialLiveState(), status };
  }

  private async post(action: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    if (typeof body.chat === 'string') await savedToServer(body.chat);
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
      if (signal?.aborted) throw refuse('conflict', 'stopped');
      throw refuse('unavailable', 'server-unreachable', { detail: e instanceof Error ? e.message : String(e) });
    }
    const data = (await response.json().catch(() => ({}))) as { error?: string; reason?: RefusalReason };
    if (!response.ok) {
      const code = CODES[response.status] ?? 'unavailable';
      const why =
        data.error ||
        (response.status === 401 || response.status === 403
          ? 'You are not allowed to do this on this wiki (sign in as a user who may edit it).'
          : `${response.status} ${response.statusText}`);
      throw new RunnerError(code, why, data.reason);
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

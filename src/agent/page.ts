/*\
The page's library: what a chat needs to be shown and driven, without the engine: the runner
and the safe reply parser (the change view's diff is diff.js, compiled once a change is shown).
A page of the server edition runs no turn (its runner is a RemoteRunner over HTTP and
server-sent events), so it never compiles the engine, the providers, the tools or the MCP
client (lib.js); a browser-only wiki requires lib.js the first time something needs its
LocalRunner (a command, or a turn that starts by itself), not when a chat is shown.
UI modules require it as `$:/plugins/tiddlyagent/agent/page.js` (ui/library.ts).
\*/
import type * as Library from '$:/plugins/tiddlyagent/agent/lib.js';
import type { AgentEventListener } from './engine/events';
import { quietLiveState } from './engine/live-state';
import type { ChatRunner } from './runner/chat-runner';
import { RemoteRunner, serverEditionMark } from './runner/remote-runner';

export { parseSafeWikitext, SAFE_RULES, settledLength } from './ui/safe-render';
export type { ChatRunner, PromptPreview, RollbackResult, McpTestResult, ApprovalChoice } from './runner/chat-runner';
export type { AgentEvent } from './engine/events';
export type { LiveChatState } from './engine/live-state';

let runner: ChatRunner | undefined;
/** The LocalRunner, once lib.js made it (a turn, a schedule, a restore, or a command here). */
let local: ChatRunner | undefined;
/** Chats shown before the LocalRunner existed: their listeners move to it when it does. */
const early = new Map<AgentEventListener, { chat: string; unsubscribe: () => void }>();

/**
 * The page's (or process's) one runner: the server's when the server edition serves the page;
 * else the local one. In a browser-only wiki the local one is made (compiling lib.js) only when
 * something needs it: a command, or a turn started elsewhere (localRunnerReady). Until then a
 * shown chat gets the snapshot of a quiet chat, read from its tiddler.
 */
export function getRunner(): ChatRunner {
  if (runner) return runner;
  const mark = $tw.browser ? serverEditionMark() : undefined;
  if (mark) {
    runner = new RemoteRunner(mark);
    return runner;
  }
  if (!$tw.browser) {
    runner = engine().getLocalRunner();
    return runner;
  }
  const load = (): ChatRunner => local ?? engine().getLocalRunner();
  const subscribe = (chat: string, listener: AgentEventListener): (() => void) => {
    if (local) return local.subscribe(chat, listener);
    listener({ type: 'snapshot', chat, state: quietLiveState($tw.wiki.getTiddler(chat)?.fields as Record<string, string> | undefined), id: 0 });
    early.set(listener, { chat, unsubscribe: () => {} });
    return () => {
      early.get(listener)?.unsubscribe();
      early.delete(listener);
    };
  };
  // Every other method of ChatRunner is a command: it goes to the LocalRunner, made on first use.
  runner = new Proxy({} as ChatRunner, {
    get: (_target, name) => {
      if (name === 'where') return 'local';
      if (name === 'subscribe') return subscribe;
      // Not a command: the proxy is no promise, and has no other properties.
      if (typeof name !== 'string' || name === 'then') return undefined;
      return (...args: unknown[]) => (load() as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);
    },
  });
  return runner;
}

/** Called by lib.js when it has made the LocalRunner: the chats already shown follow its events from now on. */
export function localRunnerReady(made: ChatRunner): void {
  local = made;
  for (const [listener, entry] of early) entry.unsubscribe = made.subscribe(entry.chat, listener);
}

function engine(): typeof Library {
  return require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Library;
}

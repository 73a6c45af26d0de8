/*\
The page's library: what a chat needs to be shown and driven, without the engine. A page of
the server edition runs no turn (its runner is a RemoteRunner over HTTP and server-sent
events), so it never compiles the engine, the providers, the tools or the MCP client
(lib.js); a browser-only wiki requires lib.js the first time a turn needs its LocalRunner.
UI modules require it as `$:/plugins/tiddlyagent/agent/page.js` (ui/library.ts).
\*/
import type * as Library from '$:/plugins/tiddlyagent/agent/lib.js';
import type { ChatRunner } from './runner/chat-runner';
import { RemoteRunner, serverEditionMark } from './runner/remote-runner';

export { parseSafeWikitext, SAFE_RULES, settledLength } from './ui/safe-render';
export { findActiveContent } from './tools/active-content';
export { changeRegions, diffText, diffWords, type Piece, type Region } from './tools/text-diff';
export type { ChatRunner, PromptPreview, RollbackResult, McpTestResult, ApprovalChoice } from './runner/chat-runner';
export type { AgentEvent } from './engine/events';
export type { LiveChatState } from './engine/live-state';

let runner: ChatRunner | undefined;

/** The page's (or process's) one runner: the server's when the server edition serves the page, else the local one, from lib.js. */
export function getRunner(): ChatRunner {
  if (runner) return runner;
  const mark = $tw.browser ? serverEditionMark() : undefined;
  runner = mark ? new RemoteRunner(mark) : (require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Library).getLocalRunner();
  return runner;
}

/*\
POST /agent/<action>: every request a chat page makes of the server's runner. TiddlyWiki's
server has checked, before this runs, that the user is a writer and that the request has
the `X-Requested-With: TiddlyWiki` header (401/403 otherwise), so a refused request changes
nothing and reaches no model. The body is JSON; operations answer 202 once persisted.

| action      | body                                   | answer                     |
| send        | chat, text, attachments?               | 202 {operation}            |
| stop        | chat                                   | 200 {}                     |
| decide      | chat, message, choice, scope?, text?   | 202 {operation}            |
| answer      | chat, message, answers (list or null)  | 202 {operation}            |
| retry       | chat, message (the turn's user message)| 202 {operation}            |
| delete-turn | chat, message                          | 200 {}                     |
| rollback    | chat, message, force?                  | 200 {conflicts, restored}  |
| compact     | chat                                   | 200 {…}                    |
| preview     | chat                                   | 200 {sections…}            |
| mcp-test    | server                                 | 200 {tools or error}       |
| provider-test | profile, api?, baseUrl?, model?, keyName? | 200 {ok, problem?, models} |
| propose-edit | instruction, text, agent?, custom?, title?, context? | 200 {text} (Ask AI in the editor) |
The names are the runner's command and query kinds (runner/commands.ts); any other is 404.
\*/
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as Server from '$:/plugins/tiddlyagent/server/lib.js';

export const methods = ['POST'];
export const path = /^\/agent\/([a-z-]+)$/;
export const bodyFormat = 'stream';
export const info = { priority: 100 };

export function handler(request: IncomingMessage, response: ServerResponse, state: { params?: string[] }): void {
  const server = require('$:/plugins/tiddlyagent/server/lib.js') as typeof Server;
  void server.handleAction(request, response, state.params?.[0] ?? '');
}

/*\
POST /agent/<action> (routes/agent-actions.ts): the action is a command or query kind of the
runner (runner/commands.ts) and the JSON body its fields. The runner validates and carries it
out; its refusals (RunnerError) carry the HTTP status. Nothing here is written per command.
\*/
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as Agent from '$:/plugins/tiddlyagent/agent/lib.js';
import { HttpError, readJsonBody } from './http-body';
import { getServerEdition } from './server-edition';

type Answer = { status: number; body: unknown };

async function perform(action: string, body: unknown, signal: AbortSignal): Promise<Answer> {
  const edition = getServerEdition();
  if (!edition) throw new HttpError(503, 'The TiddlyAgent server edition is not running.');
  const reception = await edition.runner.receive(action, body, signal);
  // A turn is answered once queued (202 and its operation); the pages follow it by its events.
  return 'receipt' in reception ? { status: 202, body: { operation: reception.receipt } } : { status: 200, body: reception.result };
}

export async function handleAction(request: IncomingMessage, response: ServerResponse, action: string): Promise<void> {
  let status: number;
  let body: unknown;
  try {
    // A page that gives up (Stop, closed) ends what its request started where that can be stopped.
    const gone = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) gone.abort();
    });
    ({ status, body } = await perform(action, await readJsonBody(request), gone.signal));
  } catch (e) {
    const agent = require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Agent;
    if (e instanceof HttpError) status = e.status;
    else if (e instanceof Error && e.name === 'RunnerError') status = agent.HTTP_STATUS[(e as Agent.RunnerError).code] ?? 400;
    else {
      status = 500;
      console.error('TiddlyAgent: a request failed', e);
    }
    // A refusal's language key goes along, so the page says it in its user's language (ui/runner-error.ts).
    const reason = status !== 500 && e instanceof Error && e.name === 'RunnerError' ? (e as Agent.RunnerError).reason : undefined;
    body = { error: status === 500 ? 'Internal error in the TiddlyAgent server edition.' : (e as Error).message, ...(reason ? { reason } : {}) };
  }
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  response.end(JSON.stringify(body));
}

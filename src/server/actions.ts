/*\
The runner operations behind POST /agent/<action> (routes/agent-actions.ts): the body is
checked here, the rest by the runner, whose refusals (RunnerError) carry the HTTP status.
\*/
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as Agent from '$:/plugins/tiddlyagent/agent/lib.js';
import { HttpError, readJsonBody } from './http-body';
import { getServerEdition } from './server-edition';

type Body = Record<string, unknown>;
type Answer = { status: number; body: unknown };

function str(body: Body, key: string): string {
  const value = body[key];
  if (typeof value !== 'string' || !value) throw new HttpError(400, `"${key}" must be a non-empty string.`);
  return value;
}

function optionalStr(body: Body, key: string): string | undefined {
  const value = body[key];
  if (value !== undefined && value !== null && typeof value !== 'string') throw new HttpError(400, `"${key}" must be a string.`);
  return value || undefined;
}

function receipt(submitted: { op: Agent.Operation }): Answer {
  return { status: 202, body: { operation: { id: submitted.op.id, status: submitted.op.status } } };
}

/** Every action of POST /agent/<action>, by name (the access-control test walks this table). */
const ACTIONS: Record<string, (runner: Agent.LocalRunner, body: Body, signal: AbortSignal) => Answer | Promise<Answer>> = {
  send: (runner, body) => {
    const attachments = body.attachments ?? [];
    if (!Array.isArray(attachments) || attachments.some((a) => typeof a !== 'string')) throw new HttpError(400, '"attachments" must be a list of titles.');
    if (typeof body.text !== 'string') throw new HttpError(400, '"text" must be a string.');
    return receipt(runner.submitSend(str(body, 'chat'), body.text, attachments as string[]));
  },
  stop: async (runner, body) => {
    await runner.stop(str(body, 'chat'));
    return { status: 200, body: {} };
  },
  // "always" carries the scope of the rule it adds (tiddler, prefix or tool), checked by the runner against the call;
  // `text`: the writer's own version of the call's text (Edit before allowing); the runner plans it through the write gate first.
  decide: (runner, body) => {
    if (body.text !== undefined && body.text !== null && typeof body.text !== 'string')
      throw new HttpError(400, '"text" must be a string (your version of the text), or left out.');
    return receipt(
      runner.submitDecision(
        str(body, 'chat'),
        str(body, 'message'),
        str(body, 'choice') as Agent.ApprovalChoice,
        body.scope,
        typeof body.text === 'string' ? body.text : undefined,
      ),
    );
  },
  'revoke-rule': async (runner, body) => ({ status: 200, body: await runner.revokeRule(str(body, 'chat'), str(body, 'message')) }),
  answer: (runner, body) => {
    if (!('answers' in body)) throw new HttpError(400, '"answers" must be a list of strings, or null to dismiss the question.');
    return receipt(runner.submitAnswer(str(body, 'chat'), str(body, 'message'), body.answers as string[] | null));
  },
  retry: (runner, body) => receipt(runner.submitRetry(str(body, 'chat'), str(body, 'message'))),
  edit: (runner, body) => {
    if (typeof body.text !== 'string') throw new HttpError(400, '"text" must be a string.');
    return receipt(runner.submitEdit(str(body, 'chat'), str(body, 'message'), body.text));
  },
  'switch-branch': (runner, body) => {
    for (const key of ['at', 'version']) if (!Number.isInteger(body[key])) throw new HttpError(400, `"${key}" must be a whole number.`);
    return receipt(runner.submitSwitch(str(body, 'chat'), body.at as number, body.version as number));
  },
  // A turn whose changes stand is deleted only with keepChanges: true (else 409), so no client removes the way back unasked.
  'delete-turn': async (runner, body) => {
    if (body.keepChanges !== undefined && typeof body.keepChanges !== 'boolean') throw new HttpError(400, '"keepChanges" must be true or false.');
    await runner.deleteTurn(str(body, 'chat'), str(body, 'message'), { keepChanges: body.keepChanges === true });
    return { status: 200, body: {} };
  },
  rollback: async (runner, body) => ({ status: 200, body: await runner.rollback(str(body, 'chat'), str(body, 'message'), body.force === true) }),
  // A rename waits for a running turn in the chat's queue: the answer is the receipt, the pages follow the synced tiddlers.
  rename: (runner, body) => receipt(runner.submitRename(str(body, 'chat'), typeof body.to === 'string' ? body.to : '')),
  'delete-chat': async (runner, body) => ({ status: 200, body: await runner.deleteChat(str(body, 'chat')) }),
  compact: async (runner, body) => ({ status: 200, body: await runner.compact(str(body, 'chat')) }),
  preview: async (runner, body) => ({ status: 200, body: await runner.previewPrompt(str(body, 'chat')) }),
  // Connecting starts a configured command (stdio) on the server: writers only, like every action.
  'mcp-test': async (runner, body) => ({ status: 200, body: await runner.testMcpServer(str(body, 'server')) }),
  // "Ask AI" in the editor: spends the server's key on a model request, so writers only, as every action.
  'propose-edit': async (runner, body, signal) => ({
    status: 200,
    body: await runner.proposeEdit(
      {
        agent: optionalStr(body, 'agent') ?? '',
        instruction: str(body, 'instruction') as Agent.EditInstruction,
        custom: optionalStr(body, 'custom'),
        text: typeof body.text === 'string' ? body.text : '',
        title: optionalStr(body, 'title'),
        context: optionalStr(body, 'context'),
      },
      signal,
    ),
  }),
  // Calls a base URL with the server's key: writers only (like every action), the key only to an
  // origin a saved profile already calls and the owner bound it to (runner/provider-test.ts),
  // whatever key name the page sends ('' = no key needed); a key in the body is ignored.
  'provider-test': async (runner, body) => ({
    status: 200,
    body: await runner.testProvider({
      profile: str(body, 'profile'),
      api: optionalStr(body, 'api'),
      baseUrl: optionalStr(body, 'baseUrl'),
      model: optionalStr(body, 'model'),
      keyName: optionalStr(body, 'keyName') ?? (body.keyName === '' ? '' : undefined),
    }),
  }),
};

export const ACTION_NAMES = Object.keys(ACTIONS);

async function perform(action: string, body: Body, signal: AbortSignal): Promise<Answer> {
  const edition = getServerEdition();
  if (!edition) throw new HttpError(503, 'The TiddlyAgent server edition is not running.');
  if (!Object.hasOwn(ACTIONS, action)) throw new HttpError(404, `There is no action "${action}".`);
  return ACTIONS[action]!(edition.runner, body, signal);
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
    body = { error: status === 500 ? 'Internal error in the TiddlyAgent server edition.' : (e as Error).message };
  }
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  response.end(JSON.stringify(body));
}

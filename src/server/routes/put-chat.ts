/*\
PUT /recipes/default/tiddlers/:title, ahead of TiddlyWiki's own route: when a browser saves
a chat tiddler (the user changed its agent, its text, …), the fields the server's runner
owns (status, context usage, current tiddler, allowed tools) keep the server's values. A
browser's copy can be a second old (the syncer's throttle), so without this a save that
crossed a finished turn would put `working` back, and the chat would look stuck. Likewise a
schedule tiddler the user pauses or edits keeps the scheduler's run count, last and next run,
so a stale copy cannot make a schedule run more often than its max runs; a trigger tiddler keeps the
watch's run count, last run and pending change (schedules/trigger-watch.ts TRIGGER_RUN_FIELDS).

The tiddlers that tell TiddlyWiki's file system adaptor where to save files
($:/config/FileSystemPaths, FileSystemExtensions, OriginalTiddlerPaths) are server
configuration: with them a writer could make the server write a tiddler's file anywhere in the
wiki folder (over the operation log, or as a TiddlyAgent configuration file). Only a user in
TiddlyWiki's `admin=` list saves them over HTTP (403 for anyone else; with no `admin=`, nobody:
the owner edits them on disk).

A body that is not a JSON object is refused (400) and writes nothing: TiddlyWiki's own route
would save the tiddler as its bare title (losing its text and fields) for a body that does not
parse, and throw, ending the server, for `null`.
\*/
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as Agent from '$:/plugins/tiddlyagent/agent/lib.js';

export const methods = ['PUT'];
export const path = /^\/recipes\/default\/tiddlers\/(.+)$/;
export const info = { priority: 200 };

/** The chat fields only the runner writes (store/schemas.ts CHAT_FIELDS, less those the user sets). */
export const RUNNER_FIELDS = [
  'agent-status',
  'agent-context-usage',
  'agent-current-tiddler',
  'agent-allowed-tools',
  'agent-queued',
  'agent-heartbeat-next',
  'agent-mcp-session',
];

/** Saved over HTTP only by an admin (see above). */
export const FILE_SYSTEM_CONFIG = ['$:/config/FileSystemPaths', '$:/config/FileSystemExtensions', '$:/config/OriginalTiddlerPaths'];

interface State {
  authenticatedUsername?: string;
  server: { get(name: string): string | undefined; isAuthorized(type: string, username?: string | null): boolean };
  wiki: { getTiddler(title: string): { fields: Record<string, unknown>; getFieldString(name: string): string } | undefined };
  params: string[];
  data?: string;
}

export function handler(request: IncomingMessage, response: ServerResponse, state: State): void {
  const title = $tw.utils.decodeURIComponentSafe(state.params[0] ?? '');
  if (FILE_SYSTEM_CONFIG.includes(title) && !(state.server.get('admin') && state.server.isAuthorized('admin', state.authenticatedUsername))) {
    response.writeHead(403, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ error: `"${title}" decides where the server writes files: only a user listed in the server's admin= saves it.` }));
    return;
  }
  const existing = state.wiki.getTiddler(title);
  const incoming = $tw.utils.parseJSONSafe(state.data ?? '', () => undefined) as Record<string, unknown> | undefined;
  if (!incoming || typeof incoming !== 'object' || Array.isArray(incoming)) {
    response.writeHead(400, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ error: 'The request body must be a JSON object (the tiddler).' }));
    return;
  }
  const { SCHEDULE_TAG, SCHEDULER_FIELDS, TRIGGER_TAG, TRIGGER_RUN_FIELDS } = require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Agent;
  const tags = existing?.fields.tags;
  const owned = !existing
    ? []
    : typeof existing.fields.agent === 'string'
      ? RUNNER_FIELDS
      : Array.isArray(tags) && tags.includes(SCHEDULE_TAG)
        ? SCHEDULER_FIELDS
        : Array.isArray(tags) && tags.includes(TRIGGER_TAG)
          ? TRIGGER_RUN_FIELDS
          : [];
  if (existing && owned.length) {
    const sub = (incoming.fields && typeof incoming.fields === 'object' ? incoming.fields : {}) as Record<string, unknown>;
    for (const name of owned) {
      delete incoming[name];
      delete sub[name];
      if (existing.fields[name] !== undefined) sub[name] = existing.getFieldString(name);
    }
    incoming.fields = sub;
    state.data = JSON.stringify(incoming);
  }
  const core = $tw.modules.execute('$:/core/modules/server/routes/put-tiddler.js', '') as {
    handler(req: IncomingMessage, res: ServerResponse, state: State): void;
  };
  core.handler(request, response, state);
}

// Concurrent users on one server (issue 14.4), shared by the quick suite (test/integration)
// and the long one (test/soak): a user's browser saves a tiddler (a PUT, as its syncer does)
// that the agent is about to write, with the agent's write waiting for approval or between
// its read and its write in one turn, the save stamping a new `modified` or keeping it (as
// `<$action-setfield $timestamp="no"/>` does, issue 23); and two pages sending to one chat at
// once. Every step waits on something the server shows (an event, a model request, a file),
// never on time.
import fs from 'node:fs';
import path from 'node:path';
import {
  defaultReply,
  getTiddler,
  operations,
  post,
  savedMessages,
  serverWikiFolder,
  startMockLlm,
  startServer,
  until,
  watch,
  writeChat,
  WRITE_HEADERS,
  type MockLlm,
  type SseClient,
  type SseEvent,
  type TwServer,
} from './server';

/** An agent like the demo's whose writes run without confirmation (the mid-turn trials). */
export const TRUSTING_AGENT = '$:/test/agents/trusting';

export interface Lab {
  mock: MockLlm;
  server: TwServer;
  dir: string;
  close(): Promise<void>;
}

/** How the user's save treats `modified`: a new one, as the editor stamps it, or the one it had. */
export type UserEdit = 'stamped' | 'kept';
export const USER_EDITS: UserEdit[] = ['stamped', 'kept'];

const noteTitle = (kind: string, edit: UserEdit, i: number) => `Shared note ${kind} ${edit} ${i}`;
const conflictChat = (kind: string, edit: UserEdit, i: number) => `Conflict chat ${kind} ${edit} ${i}`;
const sendsChat = (i: number) => `Two pages chat ${i}`;

/** One server with every chat and note the trials need (written before it boots). */
export async function startLab(trials: number): Promise<Lab> {
  const mock = await startMockLlm({ delayMs: 1 });
  const dir = serverWikiFolder(mock.url);
  const demo = fs.readFileSync(path.join(dir, 'tiddlers', '$__demo_agents_offline-demo.tid'), 'utf8');
  const trusting = demo
    .replace(/^title: .*$/m, `title: ${TRUSTING_AGENT}`)
    .replace(/^caption: .*$/m, 'caption: Trusting test agent')
    .replace('\n\n', `\nagent-approval: {"*":{"mode":"auto"}}\n\n`);
  fs.writeFileSync(path.join(dir, 'tiddlers', 'trusting-agent.tid'), trusting);
  for (let i = 0; i < trials; i++) {
    for (const kind of ['approval', 'mid-turn']) {
      for (const edit of USER_EDITS) {
        fs.writeFileSync(
          path.join(dir, 'tiddlers', `${noteTitle(kind, edit, i)}.tid`),
          `title: ${noteTitle(kind, edit, i)}\nmodified: 20240101000000000\n\nThe original text ${i}.\n`,
        );
        writeChat(dir, conflictChat(kind, edit, i), kind === 'mid-turn' ? { agent: TRUSTING_AGENT } : {});
      }
    }
    writeChat(dir, sendsChat(i));
  }
  const server = await startServer(dir);
  return {
    mock,
    server,
    dir,
    async close() {
      await server.stop();
      await mock.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** TiddlyWiki's date format (UTC, to the millisecond), as a browser stamps a tiddler it saves. */
function twNow(): string {
  return new Date().toISOString().replace(/\D/g, '').slice(0, 17);
}

/** What a browser's syncer sends when the user saves an edit of `title`. */
async function userSaves(url: string, title: string, text: string, edit: UserEdit): Promise<void> {
  const current = (await (await fetch(`${url}/recipes/default/tiddlers/${encodeURIComponent(title)}`)).json()) as Record<string, unknown>;
  const res = await fetch(`${url}/recipes/default/tiddlers/${encodeURIComponent(title)}`, {
    method: 'PUT',
    headers: WRITE_HEADERS,
    body: JSON.stringify({ ...current, text, ...(edit === 'stamped' ? { modified: twNow() } : {}) }),
  });
  if (res.status !== 204) throw new Error(`the user's PUT of ${title}: ${res.status}`);
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

type Messages = { role: string; content: unknown }[];
/** The messages of each model request since `from`. */
const requestMessages = (mock: MockLlm, from: number): Messages[] => mock.requests.slice(from).map((r: { body: { messages: Messages } }) => r.body.messages);

const isStatus = (chat: string, status: string) => (e: SseEvent) =>
  e.event === 'agent' && e.data.chat === chat && e.data.type === 'status' && e.data.status === status;

export interface ConflictOutcome {
  kind: 'approval' | 'mid-turn';
  edit: UserEdit;
  /** The user's text is not the tiddler's text on the server or on disk. */
  lostEdit: boolean;
  /** The agent's write was refused as a conflict (the tool message says so, status error). */
  refused: boolean;
  /** The model's next request carried the refusal as the tool's result. */
  modelTold: boolean;
  /** A watching page got the refused tool message. */
  userShown: boolean;
  ms: number;
}

/**
 * The user edits a tiddler the agent is about to write. `approval`: the agent read it and its
 * wiki-update waits for the user's approval; the user saves an edit, then approves. `mid-turn`:
 * the agent (no confirmation needed) read it in round 1; its wiki-update comes in round 2,
 * whose model request is held until the user's save has landed. The agent sends back the
 * `modified` it read: when the save kept it, only the content tells the versions apart.
 */
export async function conflictTrial(lab: Lab, kind: 'approval' | 'mid-turn', i: number, edit: UserEdit = 'stamped'): Promise<ConflictOutcome> {
  const started = Date.now();
  const { mock, server, dir } = lab;
  const { url } = server;
  const title = noteTitle(kind, edit, i);
  const chat = conflictChat(kind, edit, i);
  const page = await watch(url, [chat]);
  try {
    const read = (await getTiddler(url, title))!;
    const agentText = `The agent's text ${i}.`;
    const userText = `The user's own edit ${i}.`;
    const hold = deferred();
    const base = mock.requests.length;
    mock.queue([
      { toolCalls: [{ name: 'wiki-read', arguments: { title } }] },
      {
        toolCalls: [{ name: 'wiki-update', arguments: { title, text: agentText, modified: read.modified } }],
        ...(kind === 'mid-turn' ? { hold: hold.promise } : {}),
      },
    ]);
    const sent = await post(url, 'send', { chat, text: `Please rewrite ${title}` });
    if (sent.status !== 202) throw new Error(`send: ${sent.status} ${JSON.stringify(sent.body)}`);
    if (kind === 'approval') {
      const waiting = await page.waitFor('the approval card', (e) => e.event === 'agent' && e.data.chat === chat && e.data.type === 'waiting');
      await userSaves(url, title, userText, edit);
      const decided = await post(url, 'decide', { chat, message: waiting.data.message, choice: 'once' });
      if (decided.status !== 202) throw new Error(`decide: ${decided.status} ${JSON.stringify(decided.body)}`);
    } else {
      // Round 2's request has arrived: the agent has read the tiddler and is about to write it.
      await until('the round after the read', () => mock.requests.length >= base + 2 && !!mock.requests[base + 1]!.reply);
      await userSaves(url, title, userText, edit);
      hold.resolve();
    }
    await page.waitFor('the turn to complete', isStatus(chat, 'completed'));
    const onServer = (await getTiddler(url, title))!;
    const onDisk = fs.readFileSync(path.join(dir, 'tiddlers', `${title}.tid`), 'utf8');
    const toolMessage = savedMessages(dir, chat).find((m) => m.role === 'tool' && m['tool-name'] === 'wiki-update');
    const conflict = (text: unknown) => typeof text === 'string' && text.includes('changed since you read it');
    const toolResult = requestMessages(mock, mock.requests.length - 1)[0]!.at(-1)!;
    return {
      kind,
      edit,
      lostEdit: onServer.text !== userText || !onDisk.endsWith(`\n\n${userText}`),
      refused: toolMessage?.['tool-status'] === 'error' && conflict(toolMessage.text),
      modelTold: mock.requests.length === base + 3 && toolResult.role === 'tool' && conflict(toolResult.content),
      userShown: page.events.some(
        (e) => e.event === 'tiddler' && e.data.title === toolMessage?.title && e.data['tool-status'] === 'error' && conflict(e.data.text),
      ),
      ms: Date.now() - started,
    };
  } finally {
    page.close();
  }
}

export interface SendsOutcome {
  /** Both sends were accepted (202) and their operations ended done. */
  accepted: boolean;
  /** The chat holds exactly user, reply, user, reply, in the order the server took the sends. */
  inOrder: boolean;
  /** Each reply is the whole reply to its own message. */
  complete: boolean;
  /** The second turn's request carried the first turn whole: it ran after the first ended. */
  oneAfterTheOther: boolean;
  lost: number;
  duplicated: number;
  ms: number;
}

/** Two pages send to one chat at the same moment. */
export async function twoSendersTrial(lab: Lab, i: number): Promise<SendsOutcome> {
  const started = Date.now();
  const { mock, server, dir } = lab;
  const { url } = server;
  const chat = sendsChat(i);
  const texts = [`First page, trial ${i}`, `Second page, trial ${i}`];
  const pages = await Promise.all([watch(url, [chat]), watch(url, [chat])]);
  try {
    const base = mock.requests.length;
    const answers = await Promise.all(texts.map((text) => post(url, 'send', { chat, text })));
    const ids = answers.map((a) => (a.body.operation as { id?: string } | undefined)?.id);
    // Both turns have ended once the chat holds two replies and the operations are done.
    const ended = () => operations(dir).filter((op) => ids.includes(op.id as string) && ['done', 'failed', 'canceled'].includes(op.status as string));
    await until('both turns ended', () => ended().length === 2);
    const taken = [
      ...new Set(
        operations(dir)
          .filter((op) => ids.includes(op.id as string))
          .map((op) => op.id as string),
      ),
    ];
    const order = taken.map((id) => texts[ids.indexOf(id)]!);
    // Each page sees both replies whole, then the chat completed after the last one.
    const isReply = (text: string) => (e: SseEvent) =>
      e.event === 'tiddler' && e.data['agent-chat'] === chat && e.data.role === 'assistant' && e.data.text === defaultReply(text);
    const seen = async (page: SseClient) => {
      try {
        for (const text of order) await page.waitFor(`the reply to ${text}`, isReply(text), { ms: 5000 });
        const last = Math.max(...order.map((text) => page.events.findIndex(isReply(text))));
        await page.waitFor('completed', isStatus(chat, 'completed'), { from: last, ms: 5000 });
        return true;
      } catch {
        return false;
      }
    };
    const complete = (await Promise.all(pages.map(seen))).every(Boolean);
    const messages = savedMessages(dir, chat).map((m) => [m.role, m.text]);
    const users = messages.filter(([role]) => role === 'user').map(([, text]) => text);
    const requests = requestMessages(mock, base);
    const second = requests[1] ?? [];
    return {
      accepted: answers.every((a) => a.status === 202) && ended().every((op) => op.status === 'done'),
      inOrder:
        order.length === 2 &&
        JSON.stringify(messages) ===
          JSON.stringify(
            order.flatMap((text) => [
              ['user', text],
              ['assistant', defaultReply(text)],
            ]),
          ),
      complete,
      oneAfterTheOther:
        requests.length === 2 &&
        second.some((m) => m.role === 'user' && m.content === order[0]) &&
        second.some((m) => m.role === 'assistant' && m.content === defaultReply(order[0]!)),
      lost: texts.filter((t) => !users.includes(t)).length,
      duplicated: users.length - new Set(users).size,
      ms: Date.now() - started,
    };
  } finally {
    for (const page of pages) page.close();
  }
}

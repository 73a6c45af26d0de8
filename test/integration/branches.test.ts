// Edit and resend, regenerate and the switch between a chat's versions (runner/services/branches.ts),
// through a LocalRunner on a booted TiddlyWiki with a scripted model: the old branch stays
// reachable, the prompt holds only the active path, versions come back as they were.
import type { ModelRequest } from '../../src/agent/providers/types';
import { bootEngineWiki, deferred, disposeRunners, hangingStep, part, scriptedModel, scriptedRunner, within, type Harness } from './engine/harness';

let h: Harness;

beforeAll(async () => {
  h = await bootEngineWiki();
});
afterEach(() => disposeRunners());

/** A model that answers "Answer <n> to <the last user message>". */
function echoModel() {
  return scriptedModel(
    (call) =>
      async function* (request: ModelRequest) {
        const last = request.messages.filter((m) => m.role === 'user').at(-1);
        yield part.text(`Answer ${call} to ${String(last?.content)}`);
        yield part.finish('stop');
      },
  );
}

const path = (chat: string) => h.messages(chat).map((m) => `${m.role}: ${m.text}`);
const parked = (chat: string) => h.$tw.wiki.filterTiddlers(`[prefix[$:/ai/branches/${chat}/]]`) as string[];

test('edit and resend forks the chat: the new turn sees only the active path, the old branch comes back with a switch', async () => {
  const chat = h.newChat();
  const s = echoModel();
  const runner = scriptedRunner(h, s.model, []);
  await within(runner.submit({ kind: 'send', chat, text: 'one' }), 'turn 1');
  await within(runner.submit({ kind: 'send', chat, text: 'two' }), 'turn 2');
  const first = h.messages(chat)[0]!.title!;

  expect(await within(runner.submit({ kind: 'edit', chat, message: first, text: 'uno' }), 'the edited turn')).toEqual({ status: 'completed' });
  expect(path(chat)).toEqual(['user: uno', 'assistant: Answer 3 to uno']);
  // The prompt of the new turn: the system prompt and the edited message, nothing of the old branch.
  expect(s.requests[2]!.messages.filter((m) => m.role !== 'system').map((m) => m.content)).toEqual(['uno']);
  expect(parked(chat)).toHaveLength(4);
  expect(runner.branches.forks(chat).get(0)).toEqual({ versions: [1, 2], active: 2 });

  await within(runner.submit({ kind: 'switch-branch', chat, at: 0, version: 1 }), 'the switch back');
  expect(path(chat)).toEqual(['user: one', 'assistant: Answer 1 to one', 'user: two', 'assistant: Answer 2 to two']);
  expect(runner.branches.forks(chat).get(0)).toEqual({ versions: [1, 2], active: 1 });
  // The old branch goes on: its next turn's prompt is that branch, not the edited one.
  await within(runner.submit({ kind: 'send', chat, text: 'three' }), 'turn on the old branch');
  expect(s.requests[3]!.messages.filter((m) => m.role !== 'system').map((m) => m.content)).toEqual([
    'one',
    'Answer 1 to one',
    'two',
    'Answer 2 to two',
    'three',
  ]);

  await within(runner.submit({ kind: 'switch-branch', chat, at: 0, version: 2 }), 'the switch forward');
  expect(path(chat)).toEqual(['user: uno', 'assistant: Answer 3 to uno']);
  expect(h.status(chat)).toBe('completed');
});

test('retry keeps each answer as a version; switching brings one back; forks inside a parked branch go and come back with it', async () => {
  const chat = h.newChat();
  const runner = scriptedRunner(h, echoModel().model, []);
  await within(runner.submit({ kind: 'send', chat, text: 'q' }), 'turn 1');
  const question = h.messages(chat)[0]!.title!;
  await within(runner.submit({ kind: 'retry', chat, message: question }), 'retry 1');
  await within(runner.submit({ kind: 'retry', chat, message: question }), 'retry 2');
  expect(path(chat)).toEqual(['user: q', 'assistant: Answer 3 to q']);
  expect(runner.branches.forks(chat).get(1)).toEqual({ versions: [1, 2, 3], active: 3 });

  await within(runner.submit({ kind: 'switch-branch', chat, at: 1, version: 1 }), 'to version 1');
  expect(path(chat)).toEqual(['user: q', 'assistant: Answer 1 to q']);
  expect(runner.branches.forks(chat).get(1)).toEqual({ versions: [1, 2, 3], active: 1 });
  await within(runner.submit({ kind: 'switch-branch', chat, at: 1, version: 2 }), 'to version 2');
  expect(path(chat)).toEqual(['user: q', 'assistant: Answer 2 to q']);
  // Answering version 2 again adds version 4; 1..3 stay as they were.
  await within(runner.submit({ kind: 'retry', chat, message: question }), 'retry 3');
  expect(runner.branches.forks(chat).get(1)).toEqual({ versions: [1, 2, 3, 4], active: 4 });

  // A fork at the question (an edit) parks the reply's versions with it; switching back restores them.
  await within(runner.submit({ kind: 'edit', chat, message: question, text: 'q2' }), 'the edit');
  expect([...runner.branches.forks(chat).keys()]).toEqual([0]);
  await within(runner.submit({ kind: 'switch-branch', chat, at: 0, version: 1 }), 'back to q');
  expect(path(chat)).toEqual(['user: q', 'assistant: Answer 4 to q']);
  expect(runner.branches.forks(chat).get(1)).toEqual({ versions: [1, 2, 3, 4], active: 4 });
});

test('a retry after an error deletes the error instead of keeping it as a version', async () => {
  const chat = h.newChat();
  const runner = scriptedRunner(h, scriptedModel([[part.finish('stop')], [part.text('Fine.'), part.finish('stop')]]).model, []);
  expect((await within(runner.submit({ kind: 'send', chat, text: 'q' }), 'the empty turn')).status).toBe('failed');
  await within(runner.submit({ kind: 'retry', chat, message: h.messages(chat)[0]!.title! }), 'the retry');
  expect(path(chat)).toEqual(['user: q', 'assistant: Fine.']);
  expect(parked(chat)).toEqual([]);
});

test('deleting a turn deletes the versions parked at its forks (and the branches inside them), and leaves other forks alone', async () => {
  const chat = h.newChat();
  const runner = scriptedRunner(h, echoModel().model, []);
  await within(runner.submit({ kind: 'send', chat, text: 'one' }), 'turn 1');
  await within(runner.submit({ kind: 'send', chat, text: 'two' }), 'turn 2');
  await within(runner.submit({ kind: 'send', chat, text: 'three' }), 'turn 3');
  const turnStart = (text: string) => h.messages(chat).find((m) => m.role === 'user' && m.text === text)!.title!;
  await within(runner.submit({ kind: 'retry', chat, message: turnStart('three') }), 'retry of turn 3');
  await within(runner.submit({ kind: 'edit', chat, message: turnStart('two'), text: 'two, edited' }), 'edit of turn 2');
  await within(runner.submit({ kind: 'retry', chat, message: turnStart('two, edited') }), 'retry of the edited turn 2');
  const forkOf = (title: string) => h.$tw.wiki.getTiddler(title).fields['agent-branch-at'];
  // Forks at turn 2's message (2) and its reply (3), and turn 3's retry (5) parked inside the old turn 2.
  expect(new Set(parked(chat).map(forkOf))).toEqual(new Set(['2', '3', '5']));
  // Turn 1 has no fork: deleting it leaves every version where it was.
  const before = parked(chat);
  await runner.submit({ kind: 'delete-turn', chat, message: turnStart('one') });
  expect(parked(chat)).toEqual(before);
  // The edited turn 2 holds both forks (its message and its reply), and the branch parked inside
  // the old turn 2 (turn 3's retry): all of them go with it.
  await runner.submit({ kind: 'delete-turn', chat, message: turnStart('two, edited') });
  expect(parked(chat)).toEqual([]);
  expect(path(chat)).toEqual([]);
});

test("a turn's journal goes with its branch and comes back with it", async () => {
  const chat = h.newChat();
  const runner = scriptedRunner(h, echoModel().model, []);
  await within(runner.submit({ kind: 'send', chat, text: 'one' }), 'turn 1');
  const first = h.messages(chat)[0]!.title!;
  const journal = `$:/ai/journal/${chat}/000000`;
  h.$tw.wiki.addTiddler({
    title: journal,
    type: 'application/json',
    'agent-chat-journal': chat,
    'agent-turn': first,
    text: '{"Note":{"before":null,"after":{"title":"Note"}}}',
  });

  await within(runner.submit({ kind: 'edit', chat, message: first, text: 'uno' }), 'the edit');
  expect(h.$tw.wiki.tiddlerExists(journal)).toBe(false);
  const kept = parked(chat).find((t) => t.includes('/journal/'))!;
  expect(h.fields(kept)).toMatchObject({ 'agent-branch-chat': chat, 'agent-turn': first });
  expect(h.fields(kept)['agent-chat-journal']).toBeUndefined();

  await within(runner.submit({ kind: 'switch-branch', chat, at: 0, version: 1 }), 'the switch back');
  expect(h.fields(journal)).toMatchObject({ 'agent-chat-journal': chat, 'agent-turn': first });
  expect(parked(chat).some((t) => t.includes('/journal/'))).toBe(false);
});

test('edit, retry and switch are refused while a turn runs or waits, and for versions that do not exist', async () => {
  const chat = h.newChat();
  const started = deferred();
  const s = scriptedModel([[part.text('A.'), part.finish('stop')], [part.text('B.'), part.finish('stop')], hangingStep(started)]);
  const runner = scriptedRunner(h, s.model, []);
  await within(runner.submit({ kind: 'send', chat, text: 'one' }), 'turn 1');
  const first = h.messages(chat)[0]!.title!;
  await within(runner.submit({ kind: 'retry', chat, message: first }), 'retry');
  const running = runner.submit({ kind: 'send', chat, text: 'two' });
  await within(started.promise, 'the hanging turn');
  const before = path(chat);
  await expect(runner.submit({ kind: 'edit', chat, message: first, text: 'uno' })).rejects.toMatchObject({ code: 'conflict' });
  await expect(runner.submit({ kind: 'switch-branch', chat, at: 1, version: 1 })).rejects.toMatchObject({ code: 'conflict' });
  expect(path(chat)).toEqual(before);
  await runner.submit({ kind: 'stop', chat });
  await within(running, 'the stopped turn');

  await expect(runner.submit({ kind: 'switch-branch', chat, at: 1, version: 7 })).rejects.toMatchObject({ code: 'not-found' });
  await expect(runner.submit({ kind: 'switch-branch', chat, at: 5, version: 1 })).rejects.toMatchObject({ code: 'not-found' });
  await expect(runner.submit({ kind: 'edit', chat, message: first, text: '  ' })).rejects.toMatchObject({ code: 'bad-request' });
  await expect(runner.submit({ kind: 'edit', chat, message: h.messages(chat)[1]!.title!, text: 'x' })).rejects.toMatchObject({ code: 'not-found' });
});

test("a tiddler outside the chat's branch folder is never taken for a version, whatever its fields", async () => {
  const chat = h.newChat();
  const runner = scriptedRunner(h, echoModel().model, []);
  await within(runner.submit({ kind: 'send', chat, text: 'one' }), 'turn 1');
  // Hand-made (an import, a plugin): the fields of a parked reply, under another title.
  h.$tw.wiki.addTiddler({
    title: 'Forged version',
    'agent-branch-chat': chat,
    'agent-branch': '1',
    'agent-branch-at': '1',
    'agent-seq': '1',
    'agent-version': '1',
    role: 'assistant',
    text: 'Forged reply',
  });
  expect(runner.branches.forks(chat).size).toBe(0);
  await expect(runner.submit({ kind: 'switch-branch', chat, at: 1, version: 1 })).rejects.toMatchObject({ code: 'not-found' });
  expect(path(chat)).toEqual(['user: one', 'assistant: Answer 1 to one']);
});

test('after a crash, an edit that had not started leaves the chat as it was; one cut off after its fork keeps both branches and says it was interrupted', async () => {
  const chat = h.newChat();
  const runner = scriptedRunner(h, echoModel().model, []);
  await within(runner.submit({ kind: 'send', chat, text: 'one' }), 'turn 1');
  const first = h.messages(chat)[0]!.title!;
  const before = path(chat);
  const restart = (op: Record<string, unknown>) => {
    const log = new h.lib.MemoryOperationLog();
    log.write({ id: `op-${String(op.status)}`, chat, kind: 'edit', created: 0, message: first, text: 'uno', ...op } as never);
    const next = new h.lib.LocalRunner({
      wiki: h.port,
      fetch: () => Promise.reject(new Error('no network')),
      getApiKey: () => undefined,
      keyHint: '',
      tools: new Map(),
      operations: log,
    });
    const marked = next.restore();
    next.dispose();
    return marked;
  };

  // Logged, never run: nothing changed, nothing to mark.
  expect(restart({ status: 'queued' })).toEqual([]);
  expect(path(chat)).toEqual(before);

  // Cut off after the fork (one step: the branch and the edited message landed together).
  runner.branches.park(chat, 0);
  h.store.appendMessage(chat, { role: 'user', text: 'uno', operation: 'op-running' });
  h.store.setStatus(chat, 'working');
  expect(restart({ status: 'running' })).toEqual([chat]);
  expect(h.messages(chat).map((m) => m.role)).toEqual(['user', 'error']);
  expect(h.status(chat)).toBe('interrupted');
  expect(runner.branches.forks(chat).get(0)).toEqual({ versions: [1, 2], active: 2 });
  await within(runner.submit({ kind: 'switch-branch', chat, at: 0, version: 1 }), 'the old branch back');
  expect(path(chat)).toEqual(before);
});

test('a retry asked as soon as a reply is shown, while its operation still finishes (an automatic title that renames the chat), waits behind it and follows the rename', async () => {
  const agent = h.agentOf(h.newChat());
  const chat = 'Chat 77'; // a default title: after its first turn the runner asks the model for a title
  h.$tw.wiki.addTiddler({ title: chat, agent, 'agent-status': 'idle', text: '' });
  const titleAsked = deferred();
  const titleAnswer = deferred();
  const s = scriptedModel((call) =>
    call === 2
      ? async function* () {
          titleAsked.resolve();
          await titleAnswer.promise;
          yield part.text('Garden plans');
          yield part.finish('stop');
        }
      : async function* (request: ModelRequest) {
          yield part.text(`Answer ${call} to ${String(request.messages.filter((m) => m.role === 'user').at(-1)?.content)}`);
          yield part.finish('stop');
        },
  );
  const runner = scriptedRunner(h, s.model, []);
  const first = runner.submit({ kind: 'send', chat, text: 'one' });
  await within(titleAsked.promise, 'the title request');
  // The reply is shown and the chat is `completed`; its operation still waits for the title.
  expect(h.status(chat)).toBe('completed');
  const user = h.messages(chat)[0]!.title!;
  const retried = runner.submit({ kind: 'retry', chat, message: user });
  titleAnswer.resolve();
  await within(first, 'turn 1 and its title');
  expect(await within(retried, 'the retry, after the title')).toEqual({ status: 'completed' });
  expect(path('Garden plans')).toEqual(['user: one', 'assistant: Answer 3 to one']);
});

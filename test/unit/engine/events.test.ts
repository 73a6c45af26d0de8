// The event bus folds a running turn into a live state, and a subscriber that joins mid-turn
// gets it first as a snapshot (the text streamed so far, the tools running), then the events.
import { EventBus, type AgentEvent } from '../../../src/agent/engine/events';

test('a subscriber that joins mid-reply gets the streamed text so far, then the following deltas', () => {
  const bus = new EventBus();
  bus.emit({ type: 'status', chat: 'C', status: 'working' });
  bus.emit({ type: 'reply-started', chat: 'C', model: 'm' });
  bus.emit({ type: 'text-delta', chat: 'C', text: 'Hello ' });
  bus.emit({ type: 'tool-started', chat: 'C', callId: '1', name: 'wiki-search' });
  const seen: AgentEvent[] = [];
  bus.subscribe('C', (e) => seen.push(e));
  bus.emit({ type: 'text-delta', chat: 'C', text: 'world' });
  expect(seen[0]).toEqual({
    type: 'snapshot',
    chat: 'C',
    id: 4,
    state: { status: 'working', streaming: { text: 'Hello ', reasoning: '', model: 'm' }, runningTools: ['wiki-search'], queue: [], retrying: undefined },
  });
  expect(seen[1]).toEqual({ type: 'text-delta', chat: 'C', text: 'world', id: 5 });
});

test('no snapshot for a chat with no turn running, nor after its turn ended', () => {
  const bus = new EventBus();
  const first: AgentEvent[] = [];
  bus.subscribe('C', (e) => first.push(e));
  expect(first).toEqual([]);
  bus.emit({ type: 'status', chat: 'C', status: 'working' });
  bus.emit({ type: 'reply-started', chat: 'C', model: 'm' });
  bus.emit({ type: 'reply-finished', chat: 'C', title: 'x' });
  bus.emit({ type: 'status', chat: 'C', status: 'completed' });
  const late: AgentEvent[] = [];
  bus.subscribe('C', (e) => late.push(e));
  expect(late).toEqual([]);
  // Another chat's turn is not this chat's.
  bus.emit({ type: 'status', chat: 'D', status: 'working' });
  const other: AgentEvent[] = [];
  bus.subscribe('C', (e) => other.push(e));
  expect(other).toEqual([]);
});

test('every event gets an id, increasing across chats, so a push channel can resume after it', () => {
  const bus = new EventBus();
  const all: AgentEvent[] = [];
  bus.subscribeAll((e) => all.push(e));
  bus.emit({ type: 'status', chat: 'C', status: 'working' });
  bus.emit({ type: 'status', chat: 'D', status: 'working' });
  bus.emit({ type: 'text-delta', chat: 'C', text: 'x' });
  expect(all.map((e) => [e.chat, e.id])).toEqual([
    ['C', 1],
    ['D', 2],
    ['C', 3],
  ]);
});

test("a quiet chat's subscriber gets the state its tiddlers give; messages waiting in the queue keep a chat live", () => {
  const bus = new EventBus();
  const first: AgentEvent[] = [];
  bus.subscribe(
    'C',
    (e) => first.push(e),
    () => ({ status: 'completed', runningTools: [], queue: [] }),
  );
  expect(first).toEqual([{ type: 'snapshot', chat: 'C', id: 0, state: { status: 'completed', runningTools: [], queue: [] } }]);
  bus.emit({ type: 'queue', chat: 'C', queue: [{ id: 'q1', text: 'later', attachments: [] }] });
  const late: AgentEvent[] = [];
  bus.subscribe(
    'C',
    (e) => late.push(e),
    () => ({ status: 'idle', runningTools: [], queue: [] }),
  );
  expect(late[0]).toMatchObject({ type: 'snapshot', state: { queue: [{ id: 'q1', text: 'later' }] } });
});

// Shared test harness for the engine tests: a real booted TiddlyWiki, a scripted LanguageModel
// that records every request it gets, an event recorder with bounded waits, and runners whose
// model is the scripted one. No fixed sleeps anywhere: waits are on promises and events, each
// bounded so a broken engine fails the test instead of hanging it.
import type { EngineDeps } from '../../../src/agent/engine/loop';
import type { AgentEvent } from '../../../src/agent/engine/events';
import type { EnginePlugin } from '../../../src/agent/engine/hooks';
import type { LanguageModel, ModelRequest, StreamPart } from '../../../src/agent/providers/types';
import type { ToolDefinition } from '../../../src/agent/tools/tool';
import { agentLib, bootWiki, type TW } from '../../helpers/tw';

export const PROVIDER = 'Engine test provider';

export type Lib = ReturnType<typeof agentLib>;
export type Runner = InstanceType<Lib['LocalRunner']>;
export type Fields = Record<string, string>;

export interface Harness {
  $tw: TW;
  lib: Lib;
  port: ReturnType<Lib['createTiddlyWikiPort']>;
  store: InstanceType<Lib['ChatStore']>;
  /** A new agent definition (with `agentFields`) and a new idle chat of it; returns the chat title. */
  newChat(agentFields?: Fields, prefix?: string): string;
  /** The agent definition title of a chat. */
  agentOf(chat: string): string;
  /** The chat's message tiddlers in agent-seq order, as plain field objects. */
  messages(chat: string): Fields[];
  status(chat: string): string;
  fields(title: string): Fields;
}

/** Boot a real TiddlyWiki once per test file, with the provider profile preloaded. */
export async function bootEngineWiki(): Promise<Harness> {
  const $tw = await bootWiki([{ title: PROVIDER, tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': 'http://127.0.0.1:9/v1', 'default-model': 'm' }]);
  const lib = agentLib($tw);
  lib.ensureWebGlobals(); // the built library runs in TiddlyWiki's vm sandbox (AbortController etc.)
  const port = lib.createTiddlyWikiPort($tw.wiki);
  const store = new lib.ChatStore(port);
  let count = 0;
  const fields = (title: string): Fields => ($tw.wiki.getTiddler(title)?.getFieldStrings() ?? {}) as Fields;
  return {
    $tw,
    lib,
    port,
    store,
    newChat(agentFields = {}, prefix = 'Engine') {
      const n = ++count;
      const agent = `${prefix} agent ${n}`;
      $tw.wiki.addTiddler({ title: agent, tags: '$:/tags/AI/Agent', 'agent-provider': PROVIDER, text: 'You are a test agent.', ...agentFields });
      const chat = `${prefix} chat ${n}`;
      $tw.wiki.addTiddler({ title: chat, agent, 'agent-status': 'idle', text: '' });
      return chat;
    },
    agentOf: (chat) => fields(chat).agent!,
    messages(chat) {
      return ($tw.wiki.filterTiddlers(`[field:agent-chat[${chat}]]`) as string[]).map(fields).sort((a, b) => Number(a['agent-seq']) - Number(b['agent-seq']));
    },
    status: (chat) => fields(chat)['agent-status']!,
    fields,
  };
}

// ---------------------------------------------------------------------------------------------
// Stream parts

export const part = {
  text: (text: string): StreamPart => ({ type: 'text-delta', text }),
  call: (id: string, name: string, args: unknown, index = 0): StreamPart => ({ type: 'tool-call', index, id, name, args }),
  invalid: (id: string, name: string, argsText: string, reason: string, index = 0): StreamPart => ({
    type: 'tool-call-invalid',
    index,
    id,
    name,
    argsText,
    reason,
  }),
  usage: (inputTokens: number, outputTokens: number): StreamPart => ({ type: 'usage', inputTokens, outputTokens }),
  finish: (reason: 'stop' | 'length' | 'tool-calls' = 'stop'): StreamPart => ({ type: 'finish', reason }),
};

/** A plain text reply. */
export const reply = (text: string): StreamPart[] => [part.text(text), part.finish('stop')];

/** A reply that calls tools: [id, name, args] each. */
export const toolCalls = (...calls: [string, string, unknown][]): StreamPart[] => [
  ...calls.map(([id, name, args], i) => part.call(id, name, args, i)),
  part.finish('tool-calls'),
];

// ---------------------------------------------------------------------------------------------
// The scripted model

/** One model call: parts to stream, or a function that makes the stream (may await, may throw). */
export type Step = StreamPart[] | ((request: ModelRequest, signal: AbortSignal, call: number) => AsyncIterable<StreamPart>);

export interface Scripted {
  model: LanguageModel;
  /** Every request the model got, deep-copied at the time of the call. */
  requests: ModelRequest[];
  /** The signals of each call, to check that Stop aborted them. */
  signals: AbortSignal[];
}

export function scriptedModel(steps: Step[] | ((call: number) => Step)): Scripted {
  const requests: ModelRequest[] = [];
  const signals: AbortSignal[] = [];
  const model: LanguageModel = {
    api: 'scripted',
    stream(request, signal) {
      const call = requests.length + 1;
      requests.push(JSON.parse(JSON.stringify(request)) as ModelRequest);
      signals.push(signal);
      const step = typeof steps === 'function' ? steps(call) : steps[call - 1];
      if (!step) throw new Error(`Scripted model: unexpected call #${call}`);
      return typeof step === 'function' ? step(request, signal, call) : stream(step);
    },
  };
  return { model, requests, signals };
}

async function* stream(parts: StreamPart[]): AsyncGenerator<StreamPart> {
  for (const p of parts) yield p;
}

/** A step that streams `before`, resolves `started`, and then ends only when the call is aborted. */
export function hangingStep(started: Deferred<void>, before: StreamPart[] = []): Step {
  return async function* (_request, signal) {
    for (const p of before) yield p;
    started.resolve();
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  };
}

// ---------------------------------------------------------------------------------------------
// Promises and events

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((a, b) => {
    resolve = a;
    reject = b;
  });
  return { promise, resolve, reject };
}

/** Fail (instead of hanging) when `promise` does not settle within `ms`. The timer is cleared. */
export async function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Records events; `waitFor` resolves on the first (past or future) event matching. */
export class Events {
  readonly list: AgentEvent[] = [];
  private waiters: { match(e: AgentEvent): boolean; resolve(e: AgentEvent): void }[] = [];

  /** Events as the engine emitted them; the bus's ids are checked in test/unit/engine/events.test.ts. */
  readonly emit = (withId: AgentEvent): void => {
    const { id: _id, ...event } = withId;
    this.list.push(event as AgentEvent);
    for (const w of [...this.waiters]) {
      if (w.match(event)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(event);
      }
    }
  };

  of<T extends AgentEvent['type']>(type: T): Extract<AgentEvent, { type: T }>[] {
    return this.list.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
  }

  statuses(): string[] {
    return this.of('status').map((e) => e.status);
  }

  waitFor(match: (e: AgentEvent) => boolean, what: string, ms = 5000): Promise<AgentEvent> {
    const past = this.list.find(match);
    if (past) return Promise.resolve(past);
    const d = deferred<AgentEvent>();
    this.waiters.push({ match, resolve: d.resolve });
    return within(d.promise, what, ms);
  }

  /** Only events emitted from now on. */
  next(match: (e: AgentEvent) => boolean, what: string, ms = 5000): Promise<AgentEvent> {
    const d = deferred<AgentEvent>();
    this.waiters.push({ match, resolve: d.resolve });
    return within(d.promise, what, ms);
  }

  status(status: string, ms = 5000): Promise<AgentEvent> {
    return this.waitFor((e) => e.type === 'status' && e.status === status, `status ${status}`, ms);
  }
}

// ---------------------------------------------------------------------------------------------
// Engine and runner wiring

export function toolMap(tools: ToolDefinition[]): Map<string, ToolDefinition> {
  return new Map(tools.map((t) => [t.name, t]));
}

/** EngineDeps for runTurn: the scripted model, recorded events, deterministic retries. */
export function engineDeps(
  h: Harness,
  model: LanguageModel,
  tools: ToolDefinition[],
  events: Events,
  extra: Partial<EngineDeps> = {},
): EngineDeps & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    store: h.store,
    createModel: () => model,
    emit: events.emit,
    tools: toolMap(tools),
    retry: {
      sleep: async (ms: number) => {
        sleeps.push(ms);
      },
      random: () => 0,
    },
    sleeps,
    ...extra,
  };
}

const runners: Runner[] = [];

/** A LocalRunner over the booted wiki whose turns use `model` (injected through RunnerHost.createModel). */
export function scriptedRunner(h: Harness, model: LanguageModel, tools: ToolDefinition[], plugins?: Map<string, EnginePlugin>): Runner {
  const runner = new h.lib.LocalRunner({
    wiki: h.port,
    fetch: () => Promise.reject(new Error('no network in engine tests')),
    getApiKey: () => undefined,
    keyHint: '',
    tools: toolMap(tools),
    plugins,
    createModel: () => model,
  });
  runners.push(runner);
  return runner;
}

/** Events of one chat on a runner's bus. */
export function listen(runner: Runner, chat: string): Events {
  const events = new Events();
  runner.bus.subscribe(chat, events.emit);
  return events;
}

/** Clear a runner's approval-expiry timers (a page that went away), so the test process can exit. */
export function disposeRunner(runner: Runner): void {
  runner.dispose();
}

export function disposeRunners(): void {
  for (const runner of runners.splice(0)) disposeRunner(runner);
}

/** The tool messages of a request, by call id. */
export function toolMessagesOf(request: ModelRequest): Map<string, { toolName: string; content: string }> {
  const out = new Map<string, { toolName: string; content: string }>();
  for (const m of request.messages) if (m.role === 'tool') out.set(m.toolCallId, { toolName: m.toolName, content: m.content });
  return out;
}

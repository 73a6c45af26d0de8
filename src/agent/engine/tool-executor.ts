/*\
Runs the tool calls of one reply: all concurrently, each with its own timeout, every result
kept (allSettled). Bad arguments, an unknown tool, a thrown error and a timeout each become
an error result for the model, never a crash of the turn. Each call gets its own
AbortSignal, aborted by Stop and by its timeout, so a tool that is given up is cancelled and
a write it still attempts afterwards is refused by the write gate.
\*/
import * as z from 'zod/mini';
import type { ToolOutcome } from '../store/schemas';
import type { ToolContext, ToolDefinition, ToolOutput } from '../tools/tool';

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

export interface ToolCallRequest {
  id: string;
  name: string;
  args: unknown;
  /** Set when the arguments could not be parsed (e.g. cut off by the token limit). */
  invalid?: string;
  /** The user's version of the call's text, when they edited it on the approval card (ToolContext.userText). */
  userText?: string;
}

export interface ToolCallResult {
  call: ToolCallRequest;
  status: 'ok' | 'error' | 'timeout' | 'denied';
  content: string;
  output?: ToolOutput;
  durationMs: number;
  /** Why the call did not run to its end, for the UI (the model reads `content`). */
  outcome?: ToolOutcome;
}

export async function executeToolCalls(
  calls: ToolCallRequest[],
  tools: ReadonlyMap<string, ToolDefinition>,
  /** The turn's signal (Stop), and the context of one call given that call's own signal. */
  turn: { signal: AbortSignal; contextFor(signal: AbortSignal, call: ToolCallRequest): ToolContext },
  options: { timeoutMs?: number; now?: () => number; onStart?(call: ToolCallRequest): void } = {},
): Promise<ToolCallResult[]> {
  const now = options.now ?? Date.now;
  return Promise.all(
    calls.map(async (call): Promise<ToolCallResult> => {
      const started = now();
      const done = (status: ToolCallResult['status'], content: string, output?: ToolOutput): ToolCallResult => ({
        call,
        status,
        content,
        output,
        durationMs: now() - started,
      });
      if (call.invalid)
        return done(
          'error',
          `The arguments of this call are not valid JSON (${call.invalid}), so it was not run. Send the call again with complete JSON arguments.`,
        );
      const tool = tools.get(call.name);
      if (!tool) return done('error', `Unknown tool "${call.name}". Available tools: ${[...tools.keys()].join(', ') || 'none'}.`);
      const parsed = tool.parameters.safeParse(call.args ?? {});
      if (!parsed.success) return done('error', `Invalid arguments for ${call.name}:\n${z.prettifyError(parsed.error)}`);
      const stopped = (): ToolCallResult => ({ ...done('error', `The user stopped the turn before ${call.name} finished.`), outcome: 'stopped' });
      if (turn.signal.aborted) return stopped();
      options.onStart?.(call);
      const own = new AbortController();
      const context = turn.contextFor(own.signal, call);
      const timeoutMs = toolTimeoutMs(tool, context, options.timeoutMs);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => {
          own.abort(new Error(`${call.name} timed out`));
          resolve('timeout');
        }, timeoutMs);
      });
      // Stop ends the call at once, even when the tool ignores the signal it was given.
      let onAbort = () => {};
      const aborted = new Promise<'aborted'>((resolve) => {
        onAbort = () => {
          own.abort(turn.signal.reason);
          resolve('aborted');
        };
        turn.signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        const outcome = await Promise.race([Promise.resolve().then(() => tool.execute(parsed.data, context)), timeout, aborted]);
        if (outcome === 'timeout') return done('timeout', `The tool ${call.name} did not finish within ${formatSeconds(timeoutMs)} and was given up.`);
        if (outcome === 'aborted') return stopped();
        return done(outcome.ok === false ? 'error' : 'ok', outcome.content, outcome);
      } catch (e) {
        if (turn.signal.aborted) return stopped();
        return done('error', `${call.name} failed: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        clearTimeout(timer);
        turn.signal.removeEventListener('abort', onAbort);
      }
    }),
  );
}

/**
 * How long a call of `tool` may run: the seconds the agent gives this tool (`agent-tool-timeouts`),
 * else the tool's own limit (a sub-agent's, an MCP server's), else the agent's limit for every
 * tool (`agent-tool-timeout`, passed as `fallbackMs`), else DEFAULT_TOOL_TIMEOUT_MS.
 */
export function toolTimeoutMs(tool: ToolDefinition, context: ToolContext, fallbackMs?: number): number {
  const own = context.agent?.['agent-tool-timeouts']?.[tool.name];
  if (typeof own === 'number') return own * 1000;
  return (typeof tool.timeoutMs === 'function' ? tool.timeoutMs(context) : tool.timeoutMs) ?? fallbackMs ?? DEFAULT_TOOL_TIMEOUT_MS;
}

function formatSeconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/*\
The queries: what the runner answers without changing a chat. Show prompt (the next request as
a turn would build it now), the settings' tests of an MCP server and of a provider profile, and
Ask AI's proposed text for a selection in the editor.
\*/
import { editRequestProblem, proposeEdit, type EditInstruction } from '../../engine/edit-request';
import { previewPrompt } from '../../engine/loop';
import { holdsExpiredResult } from '../../engine/history';
import { CONFIG, configValue } from '../../store/config';
import { RunnerError, type PromptPreview } from '../chat-runner';
import { testProvider } from './provider-test';
import { DEFAULT_TIMEOUT_SECONDS } from '../models';
import { type QueryHandler, requireChat } from './handler';
import { refuse } from '../refusals';

/** "Show prompt": the next request as a turn would build it now, tools and all; writes nothing. */
export const preview: QueryHandler<'preview'> = async (ctx, { chat }) => {
  requireChat(ctx, chat);
  const controller = new AbortController();
  let prompt: Awaited<ReturnType<typeof previewPrompt>>;
  try {
    prompt = await previewPrompt(ctx.engineDeps(await ctx.turnTools(chat, controller.signal)), chat);
  } catch (e) {
    throw new RunnerError('bad-request', e instanceof Error ? e.message : String(e));
  }
  const shown: PromptPreview = {
    model: prompt.request.model,
    window: prompt.usage.window,
    total: prompt.usage.total,
    trimmed: prompt.trimmed,
    sections: prompt.sections.map((section) => ({
      id: section.id,
      tokens: section.tokens,
      messages: section.messages.map((m) => ({
        role: m.role,
        content: m.content,
        ...(m.role === 'assistant' && m.toolCalls?.length ? { toolCalls: JSON.stringify(m.toolCalls) } : {}),
        ...((m.role === 'user' || m.role === 'tool') && m.images?.length ? { images: m.images.length } : {}),
        ...(holdsExpiredResult(m) ? { expired: true } : {}),
      })),
    })),
    tools: (prompt.request.tools ?? []).map((t) => ({ name: t.name, description: t.description, parameters: JSON.stringify(t.parameters) })),
  };
  return shown;
};

export const mcpTest: QueryHandler<'mcp-test'> = (ctx, { server }) => {
  if (!ctx.host.mcp) return Promise.resolve({ ok: false, tools: [], error: 'MCP is not available here.' });
  return ctx.host.mcp.test(server, AbortSignal.timeout(60_000));
};

export const providerTest: QueryHandler<'provider-test'> = (ctx, query) => {
  const { host } = ctx;
  const request = {
    profile: query.profile,
    api: query.api ?? undefined,
    baseUrl: query.baseUrl ?? undefined,
    model: query.model ?? undefined,
    keyName: query.keyName ?? undefined,
    apiKey: query.apiKey ?? undefined,
  };
  return testProvider(host.wiki, request, {
    fetch: host.fetch,
    getApiKey: (name, url) => host.getApiKey(name, url),
    keyHint: host.keyHint,
    addressRefusal: host.addressRefusal,
    secrets: host.secrets,
  });
};

/**
 * "Ask AI" from the editor (engine/edit-request.ts): the agent (default: the one new chats use)
 * proposes a new text for a selection; no chat, no turn, nothing written. Stopped by `signal`
 * and by the provider profile's timeout.
 */
export const askAi: QueryHandler<'propose-edit'> = async (ctx, query, signal) => {
  const request = {
    agent: query.agent ?? '',
    instruction: query.instruction as EditInstruction,
    text: query.text,
    custom: query.custom ?? undefined,
    title: query.title ?? undefined,
    context: query.context ?? undefined,
  };
  const problem = editRequestProblem(request);
  if (problem) throw new RunnerError('bad-request', problem);
  const agent = request.agent.trim() || configValue(ctx.host.wiki, CONFIG.defaultAgent);
  if (!ctx.host.wiki.getFields(agent)) throw refuse('not-found', 'no-such-agent', { agent });
  let timeout = DEFAULT_TIMEOUT_SECONDS;
  try {
    timeout = ctx.store.readProvider(ctx.store.readAgent(agent)['agent-provider']).timeout ?? timeout;
  } catch (e) {
    throw new RunnerError('bad-request', e instanceof Error ? e.message : String(e));
  }
  const signals = [AbortSignal.timeout(timeout * 1000), ...(signal ? [signal] : [])];
  try {
    const text = await proposeEdit(
      { store: ctx.store, createModel: (profile) => ctx.createModel(profile), signal: AbortSignal.any(signals) },
      { ...request, agent },
    );
    return { text };
  } catch (e) {
    throw new RunnerError(signal?.aborted ? 'conflict' : 'bad-request', e instanceof Error ? e.message : String(e));
  }
};

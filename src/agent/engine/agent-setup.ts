/*\
What a turn needs of a chat's agent, read and checked: its definition, provider profile,
model, tools, extra engine plugins and the language model; and the turn context built from
them. A turn (loop.ts) reads it after the user's message is saved, so a broken definition
is reported in the chat; "Show prompt" and "Compact now" read it the same way.
\*/
import type { LanguageModel } from '../providers/types';
import { ConfigError } from '../store/schemas';
import { PLUGIN_TOOL_PREFIX } from '../tools/plugin-tools';
import type { ToolDefinition } from '../tools/tool';
import { toolsNamed } from '../tools/tool-names';
import { withHint } from './error-kinds';
import { createHooks, type EngineHooks, type EnginePlugin, type TurnContext } from './hooks';
import type { EngineDeps } from './loop';
import { BUILTIN_PLUGINS } from './plugins';

/** A chat's turn context before its agent is read: the agent, profile, model and tools are filled in by the caller. */
export function turnContext(deps: EngineDeps, chat: string, signal: AbortSignal): TurnContext {
  const now = deps.now ?? Date.now;
  return {
    chat,
    store: deps.store,
    signal,
    emit: deps.emit,
    tools: new Map(),
    round: 0,
    actions: {},
    metadata: {},
    words: deps.words,
    services: deps.services ?? { now },
    agent: undefined as unknown as TurnContext['agent'],
    profile: undefined as unknown as TurnContext['profile'],
    model: '',
  };
}

/** The agent's extra engine plugins, or none when the definition or a plugin is missing (reported later). */
export function extraPlugins(deps: EngineDeps, chat: string): EnginePlugin[] {
  try {
    const plugins = deps.store.readAgent(deps.store.readChat(chat).agent)['agent-plugins'].map((name) => deps.plugins?.get(name));
    return plugins.every((p) => p !== undefined) ? (plugins as EnginePlugin[]) : [];
  } catch {
    return [];
  }
}

function agentTools(names: string[], all: ReadonlyMap<string, ToolDefinition>, agent: string): Map<string, ToolDefinition> {
  const tools = new Map<string, ToolDefinition>();
  for (const name of names) {
    const named = toolsNamed(name, all);
    // A plugin can be uninstalled (or an agent copied to a wiki without it): its tools are just absent.
    if (!named.length && name.startsWith(PLUGIN_TOOL_PREFIX)) continue;
    if (!named.length)
      throw new ConfigError(
        agent,
        'agent-tools',
        `Agent definition "${agent}": the tool "${name}" in "agent-tools" does not exist. Available: ${[...all.keys()].join(', ')}.`,
      );
    for (const t of named) tools.set(t.name, t);
  }
  return tools;
}

/**
 * What a turn needs of a chat's agent, read and checked: its definition, provider profile,
 * model, tools, extra plugins and the language model. Throws what is wrong, in the order a
 * user would fix it.
 */
export function agentSetup(deps: EngineDeps, chat: string) {
  const { store } = deps;
  const agent = store.readAgent(store.readChat(chat).agent);
  const profile = (() => {
    try {
      return store.readProvider(agent['agent-provider']);
    } catch (e) {
      // A profile that is not there (not one that cannot be read): the agent needs one chosen.
      throw e instanceof ConfigError && e.field === undefined ? withHint(e, 'no-provider') : e;
    }
  })();
  const model = agent['agent-model'] || profile['default-model'] || '';
  if (!model)
    throw withHint(
      new ConfigError(profile.title, 'default-model', `No model is set: fill "agent-model" in "${agent.title}" or "default-model" in "${profile.title}".`),
      'no-model',
    );
  const tools = agentTools(agent['agent-tools'], deps.tools, agent.title);
  const plugins = agent['agent-plugins'].map((name) => {
    const plugin = deps.plugins?.get(name);
    if (!plugin)
      throw new ConfigError(
        agent.title,
        'agent-plugins',
        `Agent definition "${agent.title}": the engine plugin "${name}" (field "agent-plugins") is not installed.`,
      );
    return plugin;
  });
  return { agent, profile, model, tools, plugins, languageModel: deps.createModel(profile) };
}

/** A turn's context for a chat, its agent, profile, model and tools read, without starting a turn. */
export function readyContext(deps: EngineDeps, chat: string, signal: AbortSignal): { ctx: TurnContext; hooks: EngineHooks; model: LanguageModel } {
  const setup = agentSetup(deps, chat);
  const ctx = turnContext(deps, chat, signal);
  ({ agent: ctx.agent, profile: ctx.profile, model: ctx.model, tools: ctx.tools } = setup);
  return { ctx, hooks: createHooks([...BUILTIN_PLUGINS, ...setup.plugins]), model: setup.languageModel };
}

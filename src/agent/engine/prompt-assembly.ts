/*\
The prompt of a chat's next request: the plugins' sections (processPrompts) and the agent's
tools, fitted to the model's context window (context.ts), with the tokens of each section.
A turn sends it (model-round.ts); "Show prompt" shows it without sending (loop.ts).
\*/
import * as z from 'zod/mini';
import type { ModelRequest, ToolSpec } from '../providers/types';
import { modelFacts } from '../store/model-facts';
import type { Reads } from '../store/read-ledger';
import type { Message } from '../store/schemas';
import { estimateMessageTokens, estimateTokens, fitToWindow, type ContextUsage } from './context';
import type { EngineHooks, PromptBuild, TurnContext } from './hooks';

export const DEFAULT_CONTEXT_WINDOW = 32_000;

/** A prompt as the next request would carry it, with its tokens per section. */
export interface AssembledPrompt {
  request: ModelRequest;
  /** The versions of tiddlers the prompt shows as current (PromptBuild.reads). */
  reads: Reads;
  /** Sections after trimming, in order, with their estimated tokens. */
  sections: { id: string; kind: string; tokens: number; messages: ModelRequest['messages'] }[];
  usage: ContextUsage;
  /** Tokens the whole prompt would take before any trimming (tools included). */
  need: number;
  trimmed: number;
  overflow: boolean;
}

/** The window a prompt fits into, the output limit a request carries and the room kept for the reply. */
export function promptWindow(ctx: TurnContext): { contextWindow: number; outputLimit?: number; reserve: number } {
  const facts = modelFacts(ctx.profile, ctx.model);
  const outputLimit = modelFacts(ctx.profile, ctx.model, { presets: false }).maxOutput;
  const contextWindow = ctx.agent['agent-context-window'] ?? facts.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  return { contextWindow, outputLimit, reserve: outputLimit ?? Math.min(facts.maxOutput ?? 0, Math.floor(contextWindow / 4)) };
}

/** Build the prompt of the next request from the chat's messages (the plugins' sections, trimmed to the window). */
export async function assemblePrompt(ctx: TurnContext, hooks: EngineHooks, history: Message[]): Promise<AssembledPrompt> {
  const toolSpecs: ToolSpec[] = [...ctx.tools.values()].map((t) => ({
    name: t.name,
    description: t.description,
    parameters: z.toJSONSchema(t.parameters, { io: 'input' }) as Record<string, unknown>,
  }));
  const build: PromptBuild = { sections: [], toolSpecs, history, reads: {} };
  await hooks.processPrompts.call(build, ctx);
  // The model's facts (presets, then the profile); the output limit a request carries is only
  // one the user set: a preset's is not harmless to send (OpenAI's reasoning models refuse
  // `max_tokens`), so it only reserves room, at most a quarter of the window.
  const { contextWindow, outputLimit, reserve } = promptWindow(ctx);
  const toolSpecTokens = build.toolSpecs.length ? estimateTokens(JSON.stringify(build.toolSpecs)) : 0;
  const fit = fitToWindow(build.sections, { contextWindow, reserveOutput: reserve + toolSpecTokens });
  const usage = { ...fit.usage, tools: fit.usage.tools + toolSpecTokens, total: fit.usage.total + toolSpecTokens, window: contextWindow };
  const kept = new Set(fit.messages);
  const sections = build.sections
    .map((section) => {
      const messages = section.messages.filter((m) => kept.has(m));
      return { id: section.id, kind: section.kind, messages, tokens: messages.reduce((n, m) => n + estimateMessageTokens(m), 0) };
    })
    .filter((section) => section.messages.length);
  // The placeholder that says how many messages were left out belongs to no section.
  const placeholder = fit.messages.filter((m) => !build.sections.some((sec) => sec.messages.includes(m)));
  if (placeholder.length)
    sections.unshift({ id: 'trimmed', kind: 'history', messages: placeholder, tokens: placeholder.reduce((n, m) => n + estimateMessageTokens(m), 0) });
  if (toolSpecTokens) sections.push({ id: 'tools', kind: 'tools', messages: [], tokens: toolSpecTokens });
  const need = build.sections.reduce((n, sec) => n + sec.messages.reduce((k, m) => k + estimateMessageTokens(m), 0), 0) + toolSpecTokens;
  return {
    request: {
      model: ctx.model,
      messages: fit.messages,
      tools: build.toolSpecs.length ? build.toolSpecs : undefined,
      temperature: ctx.agent['agent-temperature'],
      maxOutputTokens: outputLimit,
    },
    reads: build.reads,
    sections,
    usage,
    need,
    trimmed: fit.trimmed,
    overflow: fit.overflow,
  };
}

/*\
edit-agent-definition: the agent changes its own system prompt, model or heartbeat. Never
anything else of its definition (tools, approvals, write filter, provider, budgets, tags…),
never another agent's: the arguments cannot name either, and the write gate's privileged
path (own-definition.ts) refuses any other change whatever the arguments or approval say.
Confirm-only: every call shows the user the diff of the definition and waits for "allow
once" (approval.ts), even when `agent-approval` says auto or the user allowed it before.
The change is journaled with the turn, so rolling the turn back restores the definition.
\*/
import * as z from 'zod/mini';
import { MAX_HEARTBEAT_SECONDS, MIN_HEARTBEAT_SECONDS, parseActiveHours } from '../store/schemas';
import type { TiddlerFields } from '../store/wiki-port';
import { defineTool, type ToolContext } from './tool';
import { errorText, WriteRefused } from './write-gate';

/** The longest system prompt the tool writes, in characters. */
export const MAX_PROMPT_CHARS = 50_000;

const heartbeat = z.strictObject({
  interval: z.optional(
    z.nullable(
      z.number().check(
        z.int({ error: 'must be a whole number of seconds' }),
        z.refine((n) => n === 0 || (n >= MIN_HEARTBEAT_SECONDS && n <= MAX_HEARTBEAT_SECONDS), {
          error: `must be 0 (off) or between ${MIN_HEARTBEAT_SECONDS} and ${MAX_HEARTBEAT_SECONDS} seconds`,
        }),
        z.describe(`Seconds between heartbeats, at least ${MIN_HEARTBEAT_SECONDS}; 0 or null turns the heartbeat off`),
      ),
    ),
  ),
  message: z.optional(z.string().check(z.maxLength(4000), z.describe('The message each heartbeat sends you; "" removes it'))),
  activeHours: z.optional(
    z.nullable(
      z.string().check(
        z.refine((s) => s.trim() === '' || parseActiveHours(s) !== undefined, { error: 'must be HH:MM-HH:MM, e.g. 08:00-22:00 (22:00-06:00 spans midnight)' }),
        z.describe('Local hours when heartbeats run, HH:MM-HH:MM (22:00-06:00 spans midnight); "" or null: all day'),
      ),
    ),
  ),
});

const parameters = z
  .strictObject({
    prompt: z.optional(
      z
        .string()
        .check(
          z.maxLength(MAX_PROMPT_CHARS, { error: `must be at most ${MAX_PROMPT_CHARS} characters` }),
          z.describe('Your new system prompt (TiddlyWiki wikitext), replacing the whole current one'),
        ),
    ),
    model: z.optional(
      z
        .string()
        .check(
          z.maxLength(200),
          z.regex(/^[^\r\n]*$/, { error: 'must be one line' }),
          z.describe('The model to use from now on, as the provider names it; "" uses the provider\'s default'),
        ),
    ),
    heartbeat: z.optional(heartbeat.check(z.describe('Your heartbeat: a message sent to this chat at an interval, within active hours'))),
  })
  .check(
    z.refine(
      (args) =>
        args.prompt !== undefined || args.model !== undefined || (args.heartbeat !== undefined && Object.values(args.heartbeat).some((v) => v !== undefined)),
      {
        error: 'Nothing to change: give at least one of prompt, model, heartbeat.interval, heartbeat.message, heartbeat.activeHours.',
      },
    ),
  );

type Args = z.output<typeof parameters>;

/** The definition as it would be: only the prompt, model and heartbeat fields change. */
function changedDefinition(args: Args, context: ToolContext): TiddlerFields {
  const title = context.agent.title;
  const before = context.wiki.getFields(title);
  if (!before) throw new WriteRefused(`Refused: your definition "${title}" was not found.`);
  const after: TiddlerFields = { ...before };
  const set = (field: string, value: string | undefined) => {
    if (value === undefined || value.trim() === '') delete after[field];
    else after[field] = value;
  };
  if (args.prompt !== undefined) after.text = args.prompt;
  if (args.model !== undefined) set('agent-model', args.model.trim());
  const hb = args.heartbeat;
  if (hb?.interval !== undefined) set('agent-heartbeat-interval', hb.interval ? String(hb.interval) : undefined);
  if (hb?.message !== undefined) set('agent-heartbeat-message', hb.message);
  if (hb?.activeHours !== undefined) set('agent-heartbeat-active-hours', hb.activeHours?.trim() || undefined);
  after.modified = context.wiki.now();
  return after;
}

function describeChange(args: Args): string[] {
  const parts: string[] = [];
  if (args.prompt !== undefined) parts.push('the system prompt');
  if (args.model !== undefined) parts.push(args.model.trim() ? `the model (${args.model.trim()})` : "the model (the provider's default)");
  const hb = args.heartbeat;
  if (hb?.interval !== undefined) parts.push(hb.interval ? `the heartbeat interval (${hb.interval} s)` : 'the heartbeat (off)');
  if (hb?.message !== undefined) parts.push('the heartbeat message');
  if (hb?.activeHours !== undefined) parts.push(`the heartbeat's active hours (${hb.activeHours?.trim() || 'all day'})`);
  return parts;
}

export const editAgentDefinitionTool = defineTool({
  name: 'edit-agent-definition',
  description:
    'Change your own agent definition: your system prompt, your model, or your heartbeat (a message sent to this chat at an interval). Nothing else (not your tools, approvals or write filter), and no other agent. The user confirms every change, and it takes effect from the next message.',
  parameters,
  access: 'write',
  defaultMode: 'confirm',
  confirmOnly: true,
  // The definition is shared: the change reaches every chat of this agent (and its heartbeat, every opted-in chat).
  preview: (args, context) => `Change ${describeChange(args).join(', ')} of the agent definition "${context.agent.title}", for every chat that uses it.`,
  targets: (_args, context) => [context.agent.title],
  plan: (args, context) => context.gate.planOwnDefinition(changedDefinition(args, context)),
  execute: (args, context) => {
    try {
      const after = changedDefinition(args, context);
      context.gate.applyOwnDefinition(after);
      return {
        content: `Changed ${describeChange(args).join(', ')} of your definition "${context.agent.title}" (modified ${after.modified}). It takes effect from the next message.`,
      };
    } catch (e) {
      return { ok: false, content: errorText(e) };
    }
  },
});

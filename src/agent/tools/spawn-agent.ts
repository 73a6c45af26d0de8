/*\
`spawn-agent`: hand a sub-task to a sub-agent, which works in its own hidden chat with its
own tools and approvals and returns its final answer as this call's result (the runner runs
it: runner/services/sub-agents.ts). The result names the child chat, so its card links to it. The
call's time limit is the parent agent's `agent-spawn-timeout` (default 10 minutes).
\*/
import * as z from 'zod/mini';
import { defineTool } from './tool';

export const DEFAULT_SPAWN_TIMEOUT_SECONDS = 600;

export const spawnAgentTool = defineTool({
  name: 'spawn-agent',
  description:
    'Hand a self-contained sub-task to a sub-agent. It works in its own chat with its own tools (and the user approves its changes there), then its final answer comes back as the result. Give it everything it needs in "task" and "context": it does not see this chat. Several calls in one reply run at once.',
  parameters: z.object({
    task: z.string().check(z.minLength(1), z.maxLength(20_000), z.describe('What the sub-agent must do and what to report back')),
    context: z.optional(z.string().check(z.maxLength(50_000), z.describe('Facts from this chat the sub-agent needs'))),
    agent: z.optional(z.string().check(z.describe('Title of another agent definition to use; default: your own'))),
  }),
  access: 'control',
  defaultMode: 'auto',
  timeoutMs: (context) => (context.agent['agent-spawn-timeout'] ?? DEFAULT_SPAWN_TIMEOUT_SECONDS) * 1000,
  async execute(args, context) {
    if (!context.subAgents) return { ok: false, content: 'Sub-agents cannot run here.' };
    const result = await context.subAgents.spawn({
      parent: context.chat,
      parentAgent: context.agent.title,
      task: args.task,
      context: args.context,
      agent: args.agent,
      signal: context.signal,
    });
    const ok = result.status === 'completed';
    return { ok, child: result.chat, content: ok ? `The sub-agent (chat "${result.chat}") answered:\n${result.answer}` : result.answer };
  },
});

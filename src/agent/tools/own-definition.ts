/*\
The one privileged write the agent can make outside the write gate's rules: a change to its
own agent definition (edit-agent-definition), and the rollback of such a change. The gate
refuses every tiddler tagged `$:/…`, so an agent definition is otherwise never written by
the agent; here a change lands only when, whatever the arguments or approval say:
- the title is the calling agent's own definition (the chat's `agent`);
- the tiddler exists and is tagged $:/tags/AI/Agent before and after (never created,
  deleted, renamed or untagged);
- the only fields that differ between before and after are the prompt (`text`),
  `agent-model`, the `agent-heartbeat-*` fields and the `modified`/`modifier` bookkeeping:
  never its tools, approvals, write filter, provider, budgets, tags or type.
A rollback restores a definition under the same rule, and removes an override of a shipped
(shadow) definition only when that brings back the shadow exactly.
\*/
import { AGENT_TAG } from '../store/schemas';
import { parseTitleList, type TiddlerFields, type WikiPort } from '../store/wiki-port';
import { sameFields } from './journal';
import { isHiddenFromAgent } from './visibility';

/** The fields of its definition an agent may change. */
export const OWN_DEFINITION_FIELDS = ['text', 'agent-model', 'agent-heartbeat-interval', 'agent-heartbeat-message', 'agent-heartbeat-active-hours'] as const;
/** Bookkeeping that changes with any write (and, from a server, the syncer's). */
const BOOKKEEPING = ['modified', 'modifier'];
const SYNCER = ['revision', 'bag'];

export function isAgentDefinition(fields: TiddlerFields | null | undefined): boolean {
  return !!fields && parseTitleList(fields.tags).includes(AGENT_TAG);
}

/**
 * Why a change of `title` from `before` to `after` is not an allowed change of the agent's
 * own definition `owner`, or undefined. `syncer`: the syncer's bookkeeping may differ too
 * (a rollback of a tiddler that came back from a server).
 */
export function ownDefinitionProblem(
  title: string,
  before: TiddlerFields | null | undefined,
  after: TiddlerFields | null | undefined,
  owner: string | undefined,
  syncer = false,
): string | undefined {
  if (!owner || title !== owner) return `"${title}" is not the definition of this chat's agent; an agent may change only its own definition.`;
  if (!before || !after) return `an agent definition is never created or deleted by the agent ("${title}").`;
  if (after.title !== title || before.title !== title) return `the fields of "${title}" carry another title.`;
  if (isHiddenFromAgent(title, before) || isHiddenFromAgent(title, after)) return `"${title}" is reserved and cannot be written by the agent.`;
  if (!isAgentDefinition(before) || !isAgentDefinition(after))
    return `"${title}" is not an agent definition (tagged ${AGENT_TAG}), before and after the change.`;
  const allowed = new Set<string>([...OWN_DEFINITION_FIELDS, ...BOOKKEEPING, ...(syncer ? SYNCER : [])]);
  const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => before[k] !== after[k]);
  const locked = changed.filter((k) => !allowed.has(k));
  if (locked.length) return `an agent may change only ${OWN_DEFINITION_FIELDS.join(', ')} of its definition, never ${locked.map((k) => `"${k}"`).join(', ')}.`;
  return undefined;
}

/**
 * Restore a definition's before-image, when its current state and the restored one differ
 * only in the allowed fields; a shadow's override goes when that restores the shadow exactly.
 * Returns why it was refused, or undefined when it was restored.
 */
export function restoreOwnDefinition(wiki: WikiPort, title: string, before: TiddlerFields | null, owner: string | undefined): string | undefined {
  const current = wiki.getFields(title);
  const problem = ownDefinitionProblem(title, current, before, owner, true);
  if (problem) return problem;
  const shadow = wiki.shadowFields(title);
  if (shadow && sameFields(shadow, before)) wiki.deleteTiddler(title);
  if (!sameFields(wiki.getFields(title), before)) wiki.putTiddler(before!);
  return undefined;
}

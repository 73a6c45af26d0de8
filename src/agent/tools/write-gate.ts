/*\
The write gate: the one place where every change the agent makes lands (the built-in write
tools, user tools, the rollback of a turn; later MCP and sub-agents). A change is checked as
it would land, not by its title: the existing tiddler and the resulting one are both held to
the rules below, whatever the prompt, the approval or the agent's write filter say
(DESIGN 8). A refusal is a WriteRefused error naming the rule, and nothing of the change is
applied. Accepted changes are journaled with the turn, so it can be diffed and rolled back.

The rules, for the tiddler as it is and as it would be:
- it is not hidden from the agent (a chat, a message, `$:/ai/*`, a request's headers);
- it is not a system tiddler (`$:/…`: configuration), except scratch tiddlers under `$:/temp/`;
- it is not code or configuration: content type among the document types (active-content.ts),
  no `module-type`, `plugin-type` or `draft.*` field, no tag beginning `$:/` (Global, Macro,
  RawMarkup, StartupAction, ViewTemplate, the AI/* definitions…);
- it carries none of the fields `agent*`, `role`, `tool-*` (chats, messages and their kin),
  `memory-*` (a memory is proposed only by `remember`, accepted only by the user),
  nor `_canonical_uri` (content loaded from another address);
- as it would be, no field holds script-bearing HTML, as written or as it renders
  (script-html.ts). Only the result is judged: a user's tiddler that already holds such HTML
  may be deleted by the agent (and a rollback restores it), but not kept in a write;
- it matches the agent's `agent-write-filter` (the result: in a sandbox where it has landed);
- it is not open in an editor (a draft), and the call that makes it has not timed out or
  been stopped;
- it holds no text the product added to what the agent was shown (a "[… N more characters
  not shown]" note and its kin, product-markers.ts) that the tiddlers it is made from did not.
\*/
import { AgentDefinitionSchema, parseTiddler, type AgentDefinition } from '../store/schemas';
import { parseTitleList, type TiddlerFields, type WikiPort } from '../store/wiki-port';
import type { Journal } from '../store/turn-journal';
import { DOCUMENT_TYPES } from './active-content';
import { journaled } from './journal';
import { addedMarker, markerRefusal } from './product-markers';
import { isAgentDefinition, ownDefinitionProblem, restoreOwnDefinition } from './own-definition';
import { renderedScriptProblem, scriptProblem } from './script-html';
import { isHiddenFromAgent } from './visibility';

/** Non-system tiddlers; chats and messages are excluded by the rules above. */
export const DEFAULT_WRITE_FILTER = '[!is[system]]';

export class WriteRefused extends Error {}

/** What a change does: the resulting fields per title, null for a deletion. */
export type Changes = Record<string, TiddlerFields | null>;

export interface GateOptions {
  chat: string;
  /** The user message that started the turn: the key of its journal. */
  turn: string;
  agent: AgentDefinition;
  /** The signal of the call that writes: a write after a timeout or Stop is refused. */
  signal: AbortSignal;
}

export class WriteGate {
  /** @param wiki the whole wiki (the gate journals into `$:/ai/`), never handed to a tool. */
  constructor(
    private readonly wiki: WikiPort,
    private readonly options: GateOptions,
  ) {}

  /** Before and after images of `changes`, checked: what the approval card shows. */
  plan(changes: Changes): Journal {
    const journal: Journal = {};
    for (const [title, after] of Object.entries(changes)) {
      const before = this.wiki.getFields(title) ?? null;
      this.check(title, before, after);
      journal[title] = { before, after };
    }
    // Text the product added to what the agent was shown never lands (product-markers.ts).
    const befores = Object.values(journal).flatMap((entry) => (entry.before ? [entry.before] : []));
    for (const [title, { after }] of Object.entries(journal)) {
      const marker = after && addedMarker(after, befores);
      if (marker) throw new WriteRefused(markerRefusal(title, marker));
    }
    return journal;
  }

  /** Check every change, then apply them all and journal them with the turn; or apply none. */
  apply(changes: Changes): void {
    this.plan(changes);
    const titles = Object.keys(changes);
    journaled(this.wiki, this.options.chat, this.options.turn, titles, () => {
      for (const title of titles) {
        const after = changes[title];
        if (after) this.wiki.putTiddler(after);
        else this.wiki.deleteTiddler(title);
      }
    });
  }

  /**
   * Before and after images of a change to the calling agent's own definition (the one
   * privileged write, own-definition.ts): only its prompt, model and heartbeat may change.
   */
  planOwnDefinition(after: TiddlerFields): Journal {
    const title = after.title ?? '';
    const before = this.wiki.getFields(title) ?? null;
    this.checkOwnDefinition(title, before, after);
    return { [title]: { before, after } };
  }

  /** Check a change of the agent's own definition, then apply it and journal it with the turn. */
  applyOwnDefinition(after: TiddlerFields): void {
    const title = after.title ?? '';
    this.planOwnDefinition(after);
    journaled(this.wiki, this.options.chat, this.options.turn, [title], () => this.wiki.putTiddler(after));
  }

  private checkOwnDefinition(title: string, before: TiddlerFields | null, after: TiddlerFields): void {
    if (this.options.signal.aborted) throw new WriteRefused(`The call was stopped or timed out before it wrote "${title}"; nothing was written.`);
    // The agent of the calling chat, as the chat names it now, and as the turn started with it.
    const owner = this.wiki.getFields(this.options.chat)?.agent === this.options.agent.title ? this.options.agent.title : undefined;
    const problem = ownDefinitionProblem(title, before, after, owner) ?? scriptProblem(title, after);
    if (problem) throw new WriteRefused(`Refused: ${problem}`);
    const marker = addedMarker(after, before ? [before] : []);
    if (marker) throw new WriteRefused(markerRefusal(title, marker));
    try {
      parseTiddler(AgentDefinitionSchema, 'Agent definition', after);
    } catch (e) {
      throw new WriteRefused(`Refused: the definition would not be usable: ${errorText(e)}`);
    }
    if (this.wiki.filter('[all[tiddlers]field:draft.of<title>]', { title }).length) {
      throw new WriteRefused(`"${title}" is open in an editor right now; the user's draft must be saved or cancelled first.`);
    }
  }

  /** Why `changes` would be refused for this title, or undefined when it would land. */
  refusal(title: string, after: TiddlerFields | null): string | undefined {
    try {
      this.check(title, this.wiki.getFields(title) ?? null, after);
      return undefined;
    } catch (e) {
      return errorText(e);
    }
  }

  /** Refuse a single title before any work is done (e.g. the tiddler a tool is asked to edit). */
  checkTitle(title: string): void {
    this.check(title, this.wiki.getFields(title) ?? null, undefined);
  }

  private check(title: string, before: TiddlerFields | null, after: TiddlerFields | null | undefined): void {
    if (this.options.signal.aborted) throw new WriteRefused(`The call was stopped or timed out before it wrote "${title}"; nothing was written.`);
    if (!title.trim()) throw new WriteRefused('The title is empty.');
    const problem =
      (before && tiddlerProblem(title, before)) || (after && resultProblem(title, after)) || (!before && !after ? tiddlerProblem(title, { title }) : undefined);
    if (problem) throw new WriteRefused(`Refused: ${problem}`);
    const filter = this.options.agent['agent-write-filter']?.trim() || DEFAULT_WRITE_FILTER;
    const outside = `"${title}" is outside what this agent may write (agent-write-filter: ${filter}).`;
    const view = this.wiki.agentView();
    if (before && !matches(view, title, filter)) throw new WriteRefused(`Refused: ${outside}`);
    if (after) {
      const landed = view.sandbox();
      landed.putTiddler(after);
      if (!matches(landed, title, filter)) throw new WriteRefused(`Refused: ${outside}`);
      const rendered = renderedScriptProblem(title, renderedHtml(landed, title));
      if (rendered) throw new WriteRefused(`Refused: ${rendered}`);
    }
    if (this.wiki.filter('[all[tiddlers]field:draft.of<title>]', { title }).length) {
      throw new WriteRefused(`"${title}" is open in an editor right now; the user's draft must be saved or cancelled first.`);
    }
  }
}

/** The tiddler as the story river would show it; a tiddler that cannot be rendered shows nothing that runs. */
function renderedHtml(wiki: WikiPort, title: string): string {
  try {
    return wiki.renderHtml(title);
  } catch {
    return '';
  }
}

function matches(wiki: WikiPort, title: string, filter: string): boolean {
  return wiki.filter('[<title>] +[subfilter<write-filter>]', { title, 'write-filter': filter }).length > 0;
}

/**
 * Why the agent may not touch a tiddler as it is (or was: a rollback restores only what
 * passes this), or undefined.
 */
export function tiddlerProblem(title: string, fields: TiddlerFields): string | undefined {
  // Hidden tiddlers are "reserved", never "exists": the answer must not tell them apart.
  if (isHiddenFromAgent(title, fields)) return `"${title}" is reserved and cannot be written by the agent.`;
  if (title.startsWith('$:/') && !title.startsWith('$:/temp/')) return `"${title}" is a system tiddler ($:/…): configuration, which the agent never writes.`;
  const type = fields.type ?? '';
  if (!DOCUMENT_TYPES.includes(type))
    return `"${title}" has the type ${type}; the agent writes only documents (${DOCUMENT_TYPES.filter(Boolean).join(', ')}), never code.`;
  for (const field of ['module-type', 'plugin-type'])
    if (fields[field] !== undefined) return `"${title}" has the field ${field}: it is code, which the agent never writes.`;
  const systemTag = parseTitleList(fields.tags).find((tag) => tag.startsWith('$:/'));
  if (systemTag)
    return `"${title}" is tagged ${systemTag}: system tags make a tiddler configuration (global definitions, page parts, start-up actions, agent definitions…), which the agent never writes.`;
  return undefined;
}

/** Fields no resulting tiddler may carry: the marks of chats, messages, memories (store/memory.ts), drafts and code, and `_canonical_uri` (content loaded from elsewhere). */
const FORBIDDEN_FIELD = /^(agent.*|role|tool-.*|memory-.*|draft\..*|module-type|plugin-type|_canonical_uri)$/;

/** Why the agent may not make a tiddler into these fields, or undefined. */
export function resultProblem(title: string, fields: TiddlerFields): string | undefined {
  if (fields.title !== title) return `the fields of "${title}" carry another title ("${fields.title ?? ''}").`;
  const field = Object.keys(fields).find((name) => FORBIDDEN_FIELD.test(name));
  if (field)
    return `the field "${field}" is reserved (it marks chats, messages, memories, drafts or code, or loads content from elsewhere); the agent may not set it on "${title}".`;
  return tiddlerProblem(title, fields) ?? scriptProblem(title, fields);
}

/**
 * Roll a turn back: restore every before-image exactly (a tiddler that did not exist is
 * deleted). Only tiddlers whose current state and restored state both pass tiddlerProblem
 * are restored, so a journal can never plant code or configuration; the others are returned.
 * An agent definition (either state tagged $:/tags/AI/Agent) is restored only when it is
 * `ownDefinition` (the chat's agent) and the two states differ only in the fields its
 * agent may change itself (own-definition.ts).
 */
export function restoreJournal(wiki: WikiPort, journal: Journal, ownDefinition?: string): { restored: string[]; refused: string[] } {
  const restored: string[] = [];
  const refused: string[] = [];
  for (const [title, entry] of Object.entries(journal)) {
    const current = wiki.getFields(title);
    if (isAgentDefinition(current) || isAgentDefinition(entry.before)) {
      if (restoreOwnDefinition(wiki, title, entry.before, ownDefinition)) refused.push(title);
      else restored.push(title);
      continue;
    }
    if ((current && tiddlerProblem(title, current)) || (entry.before && tiddlerProblem(title, entry.before))) {
      refused.push(title);
      continue;
    }
    if (entry.before) wiki.putTiddler(entry.before);
    else wiki.deleteTiddler(title);
    restored.push(title);
  }
  return { restored, refused };
}

/** The message of a refusal or any other error (also one thrown from another realm). */
export function errorText(e: unknown): string {
  return typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string' ? (e as Error).message : String(e);
}

/*\
ChatStore: the only code that reads or writes agent definitions, provider profiles, chats
and messages. Message tiddlers are system tiddlers ($:/ai/messages/<chat>/<seq>) so a chat
never floods Recent or search; the chat itself is the user's own tiddler.
\*/
import type * as z from 'zod/mini';
import { READ_FIELD, stringifyReads, type Reads } from './read-ledger';
import { SOURCES_FIELD, stringifySources, type Source } from './sources';
import { canTransition } from './status';
import { APPROVAL_EDIT } from './user-version';
import {
  AGENT_TAG,
  CHAT_FIELDS,
  type ChatField,
  AgentDefinitionSchema,
  ChatSchema,
  ConfigError,
  MessageSchema,
  PROVIDER_TAG,
  ProviderProfileSchema,
  parseTiddler,
  type AgentDefinition,
  type Chat,
  type ChatStatus,
  type Message,
  type MessageRole,
  type ProviderProfile,
  type ToolOutcome,
} from './schemas';
import { parseTitleList, stringifyTitleList, type TiddlerFields, type WikiPort } from './wiki-port';
import { hasScheme, IMAGE_CHAT_FIELD, imagePrefix, isPart, messagePrefix, SUB_AGENT_PREFIX } from './chat-parts';
import { CHAT_HIDDEN, CHAT_PARENT } from './listed-chats';
import { newChatFields } from './new-chat';

/** The content type of replies: safe wikitext (ui/reply-parser.ts). */
export const REPLY_TYPE = 'text/vnd.tiddlyagent.reply';

/**
 * The fields a tool result adds to its message for the chat's line about the call: the
 * tiddlers the result listed (`tool-titles`, a title list) and how many it found in all
 * (`tool-found`). Absent when the tool listed nothing.
 */
export function toolStepFields(result: { titles?: string[]; found?: number } | undefined): Record<string, string | undefined> {
  return {
    'tool-titles': result?.titles ? stringifyTitleList(result.titles) : undefined,
    'tool-found': result?.found !== undefined ? String(result.found) : undefined,
  };
}

/** The fields a caller supplies for a new message; the store assigns title, seq and time. */
export interface NewMessage {
  role: MessageRole;
  text: string;
  type?: string;
  round?: number;
  finish?: Message['agent-finish'];
  model?: string;
  tokensIn?: number;
  tokensOut?: number;
  reasoning?: string;
  attachments?: string[];
  toolCalls?: { id: string; name: string; args: unknown }[];
  toolName?: string;
  toolCallId?: string;
  toolArgs?: unknown;
  toolStatus?: Message['tool-status'];
  /** Why the call did not run to its end (TOOL_OUTCOMES in store/schemas.ts). */
  toolOutcome?: ToolOutcome;
  duration?: number;
  approvalExpires?: string;
  /** A call waiting for approval that only these choices may decide (a confirm-only tool: once, deny). */
  approvalChoices?: string[];
  /** A call waiting for approval: what it would change (JSON, a turn journal's shape). */
  toolChanges?: string;
  /** A call waiting for approval: the titles it touches (what an "Always allow" rule may name). */
  approvalTargets?: string[];
  /** A call that ran without asking because of the user's rule: which one (JSON). */
  approvalRule?: string;
  /** A call waiting for approval: the tiddler whose text the user may edit before allowing it (store/user-version.ts). */
  approvalEdit?: string;
  /** User messages: the operation that carried them (runner/operations.ts). */
  operation?: string;
  /** User messages a schedule or heartbeat sent (schedules/scheduler.ts). */
  source?: string;
  /** spawn-agent results: the sub-agent's chat. */
  child?: string;
  /** A compaction summary (engine/compaction.ts). */
  compaction?: boolean;
  /** Error messages: what kind of failure (engine/error-kinds.ts), for a headline in the UI's language. */
  errorKind?: string;
  /** Error messages: what the user can do about it (a key, engine/error-kinds.ts), said in the UI's language. */
  errorHint?: string;
  /** Error messages about the setup: the agent or provider profile at fault (field `error-tiddler`), whose settings the chat links to. */
  errorTiddler?: string;
  /** The versions of tiddlers the message showed the agent (store/read-ledger.ts). */
  read?: Reads;
  /** Replies: their sources (store/sources.ts). */
  sources?: Source[];
  /** Replies: the memories their prompt carried (store/memory.ts). */
  memories?: string[];
  /** Tool results: the tiddlers the result listed and how many it found (toolStepFields). */
  titles?: string[];
  found?: number;
}

/** A status change the status table does not allow. */
export class StatusError extends Error {
  constructor(chat: string, from: ChatStatus, to: ChatStatus) {
    super(`Chat "${chat}" cannot go from ${from} to ${to}.`);
    this.name = 'StatusError';
  }
}

/** A message's number as its title ends: `agent-seq`, six digits, so titles sort in order. */
export function seqName(seq: number): string {
  return String(seq).padStart(6, '0');
}

export class ChatStore {
  constructor(readonly wiki: WikiPort) {}

  readAgent(title: string): AgentDefinition {
    return this.readDefinition(title, AGENT_TAG, AgentDefinitionSchema, 'an', 'Agent definition');
  }

  readProvider(title: string): ProviderProfile {
    return this.readDefinition(title, PROVIDER_TAG, ProviderProfileSchema, 'a', 'Provider profile');
  }

  /** An agent definition or a provider profile: the tiddler, tagged as one, parsed. */
  private readDefinition<S extends z.core.$ZodType>(title: string, tag: string, schema: S, article: string, kind: string): z.output<S> {
    const fields = this.wiki.getFields(title);
    if (!fields) throw new ConfigError(title, undefined, `The ${kind.toLowerCase()} "${title}" does not exist.`);
    // Only a tagged tiddler is a definition: the agent can never write such a tag (write gate),
    // so it cannot make an ordinary note into the agent or provider a chat refers to.
    if (!parseTitleList(fields.tags).includes(tag))
      throw new ConfigError(title, 'tags', `"${title}" is not ${article} ${kind.toLowerCase()}: it must be tagged ${tag}.`);
    return parseTiddler(schema, kind, fields);
  }

  readChat(title: string): Chat {
    const fields = this.wiki.getFields(title);
    if (!fields) throw new ConfigError(title, undefined, `The chat "${title}" does not exist.`);
    return parseTiddler(ChatSchema, 'Chat', fields);
  }

  /** The agent's system prompt, rendered from wikitext to plain text. */
  renderSystemPrompt(agent: string, chat: string): string {
    return this.wiki.renderPlainText(agent, { chat });
  }

  /** Titles of every chat (any tiddler with an `agent` field). */
  listChats(): string[] {
    return this.wiki.filter('[has[agent]!has[draft.of]]');
  }

  /** Messages of a chat in order; tiddlers that do not parse as messages are skipped. */
  listMessages(chat: string): Message[] {
    const out: Message[] = [];
    for (const title of this.messageTitles(chat)) {
      const fields = this.wiki.getFields(title);
      if (!fields) continue;
      try {
        out.push(parseTiddler(MessageSchema, 'Message', fields));
      } catch {
        // a hand-edited message with a bad field is left out rather than breaking the chat
      }
    }
    return out.sort((a, b) => a['agent-seq'] - b['agent-seq']);
  }

  /** Titles of a chat's messages, unordered (the field index makes this cheap; a schedule has `agent-chat` but no `agent-seq`). */
  messageTitles(chat: string): string[] {
    return this.wiki.filter('[field:agent-chat<chat>has[agent-seq]]', { chat });
  }

  /** Write a new message tiddler (one write) and return its title. */
  appendMessage(chat: string, message: NewMessage): string {
    let seq = 0;
    for (const title of this.messageTitles(chat)) {
      const n = Number(this.wiki.getFields(title)?.['agent-seq']);
      if (Number.isInteger(n) && n >= seq) seq = n + 1;
    }
    const title = `${messagePrefix(chat)}${seqName(seq)}`;
    const fields: TiddlerFields = {
      title,
      text: message.text,
      // Replies and errors (which quote what a server said) render only through the safe rules.
      type: message.type ?? (message.role === 'assistant' || message.role === 'error' ? REPLY_TYPE : 'text/plain'),
      created: this.wiki.now(),
      'agent-chat': chat,
      'agent-seq': String(seq),
      role: message.role,
    };
    const optional: Record<string, string | number | undefined> = {
      'agent-round': message.round,
      'agent-finish': message.finish,
      model: message.model,
      'tokens-in': message.tokensIn,
      'tokens-out': message.tokensOut,
      reasoning: message.reasoning || undefined,
      attachments: message.attachments?.length ? stringifyTitleList(message.attachments) : undefined,
      'tool-calls': message.toolCalls?.length ? JSON.stringify(message.toolCalls) : undefined,
      'tool-name': message.toolName,
      'tool-call-id': message.toolCallId,
      'tool-args': message.toolArgs === undefined ? undefined : JSON.stringify(message.toolArgs),
      'tool-status': message.toolStatus,
      'tool-outcome': message.toolOutcome,
      'agent-duration': message.duration,
      'approval-expires': message.approvalExpires,
      'tool-changes': message.toolChanges,
      'approval-choices': message.approvalChoices?.length ? stringifyTitleList(message.approvalChoices) : undefined,
      'approval-targets': message.approvalTargets?.length ? stringifyTitleList(message.approvalTargets) : undefined,
      'approval-rule': message.approvalRule,
      [APPROVAL_EDIT]: message.approvalEdit,
      'agent-operation': message.operation,
      'agent-source': message.source,
      'agent-child': message.child,
      'agent-compaction': message.compaction ? 'yes' : undefined,
      'error-kind': message.errorKind,
      'error-hint': message.errorHint,
      'error-tiddler': message.errorTiddler,
      [READ_FIELD]: stringifyReads(message.read),
      'agent-memories': message.memories?.length ? stringifyTitleList(message.memories) : undefined,
      [SOURCES_FIELD]: stringifySources(message.sources),
      ...toolStepFields(message),
    };
    for (const [k, v] of Object.entries(optional)) if (v !== undefined) fields[k] = String(v);
    this.wiki.putTiddler(fields);
    return title;
  }

  /** Delete messages of a chat (a turn deleted, replies replaced by a retry), with the images they keep; other titles are left alone. */
  deleteMessages(chat: string, titles: string[]): void {
    for (const title of titles) {
      const fields = this.wiki.getFields(title);
      if (!fields || !isPart('messages', chat, title, fields)) continue;
      for (const image of parseTitleList(fields.attachments)) if (this.readImage(chat, image)) this.wiki.deleteTiddler(image);
      this.wiki.deleteTiddler(title);
    }
  }

  /**
   * Keep an image that has no tiddler of its own (an MCP tool's result) for a chat: a hidden
   * tiddler (`$:/ai/images/<chat>/<n>`), named in the `attachments` of the tool message that
   * returned it and deleted with that message. Returns its title.
   */
  saveImage(chat: string, image: { mediaType: string; data: string }): string {
    const base = imagePrefix(chat);
    let n = 1;
    while (this.wiki.getFields(`${base}${n}`)) n++;
    const title = `${base}${n}`;
    this.wiki.putTiddler({ title, type: image.mediaType, text: image.data, [IMAGE_CHAT_FIELD]: chat, created: this.wiki.now() });
    return title;
  }

  /** An image the chat keeps (saveImage), or undefined: any other title, another chat's image included. */
  readImage(chat: string, title: string): { type: string; text: string } | undefined {
    const fields = hasScheme('images', chat, title) ? this.wiki.getFields(title) : undefined;
    return fields && isPart('images', chat, title, fields) ? { type: fields.type ?? '', text: fields.text ?? '' } : undefined;
  }

  /** Change fields of an existing chat or message (a decision, a tool result); one write; `undefined` removes a field. */
  updateFields(title: string, changes: Record<string, string | undefined>): void {
    const fields = this.wiki.getFields(title);
    if (!fields) return;
    const next = { ...fields };
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined) delete next[k];
      else next[k] = v;
    }
    this.wiki.putTiddler(next);
  }

  /**
   * The one status writer: set a chat's status (and optionally other declared chat fields)
   * in one write, if the status table allows the change (a StatusError if not). `modified` is
   * kept, so a running chat does not jump to the top of Recent.
   */
  setStatus(chat: string, status: ChatStatus, extra: Partial<Record<ChatField, string | undefined>> = {}): void {
    const fields = this.wiki.getFields(chat);
    if (!fields) return;
    const current = (fields['agent-status'] || 'idle') as ChatStatus;
    if (!canTransition(current, status)) throw new StatusError(chat, current, status);
    this.updateChat(chat, { ...extra, 'agent-status': status });
  }

  /** Change declared chat fields (CHAT_FIELDS) in one write; `undefined` removes a field. */
  updateChat(chat: string, changes: Partial<Record<ChatField, string | undefined>>): void {
    for (const key of Object.keys(changes)) {
      if (!(CHAT_FIELDS as readonly string[]).includes(key) || key === 'agent') throw new Error(`"${key}" is not a chat field the store writes.`);
    }
    const fields = this.wiki.getFields(chat);
    if (!fields || Object.entries(changes).every(([k, v]) => fields[k] === v)) return;
    this.updateFields(chat, changes);
  }

  /**
   * Create a sub-agent's hidden chat under its parent (`$:/ai/sub-agents/…`, so it is no
   * user's note and the model's wiki view never sees it) and return its title.
   */
  createSubAgentChat(parent: string, agent: string, caption: string): string {
    const base = `${SUB_AGENT_PREFIX}${parent}/`;
    let n = 1;
    while (this.wiki.getFields(`${base}${n}`)) n++;
    const title = `${base}${n}`;
    const now = this.wiki.now();
    this.wiki.putTiddler(newChatFields(title, agent, { [CHAT_PARENT]: parent, [CHAT_HIDDEN]: 'yes', caption, created: now, modified: now }));
    return title;
  }

  /** Create a chat tiddler for an agent and return its (unique) title. */
  createChat(agent: string, baseTitle = 'Chat'): string {
    let title = baseTitle;
    for (let n = 1; this.wiki.getFields(title); n++) title = `${baseTitle} ${n}`;
    const now = this.wiki.now();
    this.wiki.putTiddler(newChatFields(title, agent, { created: now, modified: now }));
    return title;
  }
}

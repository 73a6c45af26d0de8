/*\
Built-in plugin: prompt assembly. The agent's system prompt (wikitext rendered to plain
text), the "Current tiddler" section (seed 002: the authoritative text of the tiddler being
worked on, re-read from the wiki every round, never trimmed; the reply records the version it
showed as read, store/read-ledger.ts; refreshed after every read and every refused, failed or
denied write; a part of it when it is too large, engine/current-part.ts) and the chat history. What the model reads of the wiki
here (the Current tiddler, attachments) comes from the agent's view, where hidden tiddlers do
not exist, like everything its tools read. Image tiddlers (attached, or returned by a tool)
become image parts (engine/images.ts). A compaction summary takes the place of the turns it
replaced (engine/compaction.ts).
\*/
import type { EnginePlugin, PromptBuild, TurnContext } from '../hooks';
import { currentFocus, partialCurrentTiddler } from '../current-part';
import { promptWindow } from '../prompt-assembly';
import { evaluateApproval, parseApprovalConfig } from '../approval';
import { CURRENT_TIDDLER_TOOLS } from '../../tools/wiki-write-tools';
import { isBinaryType, tiddlerBlock, UNTRUSTED_NOTE } from '../../tools/format';
import { isPdfTiddler, PDF_ATTACHED } from '../../tools/documents';
import { buildHistory } from '../history';
import { estimateMessageTokens, estimateTokens, selectHistory } from '../context';
import { imageAttachment } from '../images';
import { liveHistory, summaryPromptMessage } from '../compaction';
import { fingerprint } from '../../store/fingerprint';
import type { Message } from '../../store/schemas';
import { ENGLISH_PROMPT_WORDS, fill, promptWords, type PromptWords } from '../prompt-words';

export const CURRENT_TIDDLER_FIELD = 'agent-current-tiddler';

export const promptPlugin: EnginePlugin = {
  name: 'prompt',
  apply(hooks) {
    hooks.processPrompts.tap('prompt', (build, ctx) => {
      const system = ctx.store.renderSystemPrompt(ctx.agent.title, ctx.chat);
      if (system) build.sections.push({ id: 'system', kind: 'system', protected: true, messages: [{ role: 'system', content: system }] });
      const current = ctx.store.wiki.getFields(ctx.chat)?.[CURRENT_TIDDLER_FIELD];
      // A failed write names its target as the Current tiddler, even when that is a chat.
      const words = promptWords(ctx.words);
      const section = current ? currentSection(ctx, build, current, words) : undefined;
      if (section)
        build.sections.push({
          id: 'current-tiddler',
          kind: 'transient',
          protected: true,
          placeBeforeLastUser: true,
          messages: [{ role: 'system', content: section }],
        });
      // A compaction's summary stands in for the turns it replaced (engine/compaction.ts).
      const { summary, messages } = liveHistory(build.history);
      const entries = historyEntries(ctx, messages);
      build.sections.push({
        id: 'history',
        kind: 'history',
        messages: [...(summary ? [summaryPromptMessage(summary, words)] : []), ...selectHistory(entries)],
      });
    });
    // Seed 002: a read and every refused, failed or denied write show the tiddler fresh, whatever
    // the approval path (a call that ran and named it sets it too: persistence.ts). Not a call a
    // rule denied: the rule may be there to keep the tiddler from the agent.
    hooks.toolExecuted.tap('prompt', ({ result }, ctx) => {
      if (result.output?.currentTiddler || result.outcome === 'rule-denied' || result.outcome === 'stopped') return;
      const title = workedOn(result.call.name, result.call.args);
      if (title) ctx.store.setStatus(ctx.chat, 'working', { [CURRENT_TIDDLER_FIELD]: title });
    });
  },
};

/**
 * The Current tiddler section, or none where the agent's rules deny reading the tiddler. One
 * too large for its room (a share of what the window leaves) shows a part (current-part.ts).
 */
function currentSection(ctx: TurnContext, build: PromptBuild, title: string, words: PromptWords): string | undefined {
  if (readDenied(ctx, title)) return undefined;
  const fields = ctx.store.wiki.agentView().getFields(title);
  // The section shows this version as the tiddler's current one: the reply's calls may write over it.
  if (fields) build.reads[title] = fingerprint(fields);
  const whole = currentTiddlerSection(fields, title, words);
  const { contextWindow, reserve } = promptWindow(ctx);
  const tools = build.toolSpecs.length ? estimateTokens(JSON.stringify(build.toolSpecs)) : 0;
  const taken = build.sections.reduce((n, sec) => n + sec.messages.reduce((k, m) => k + estimateMessageTokens(m), 0), 0);
  const room = Math.max(MIN_CURRENT_TOKENS, Math.floor((contextWindow - reserve - tools - taken) * CURRENT_SHARE));
  if (!fields || isBinaryType(fields.type) || estimateTokens(whole) <= room) return whole;
  return partialCurrentTiddler(fields, fill(words.currentTiddler, { title }), currentFocus(build.history, title, fields.text ?? ''), room);
}

/** Share of the room the window leaves that the Current tiddler may take, and the least it gets. */
const CURRENT_SHARE = 0.5;
const MIN_CURRENT_TOKENS = 500;

/** Whether the agent's approval rules deny it reading `title` (a broken rule set denies). */
function readDenied(ctx: TurnContext, title: string): boolean {
  try {
    const rules = parseApprovalConfig(ctx.agent['agent-approval'], ctx.agent.title);
    return evaluateApproval(rules, { name: 'wiki-read', access: 'read', defaultMode: 'auto' }, { title }, false, [title]).decision === 'deny';
  } catch {
    return true;
  }
}

/** The tiddler a call of a wiki tool worked on (its `title`), if it names one. */
function workedOn(tool: string, args: unknown): string | undefined {
  if (!CURRENT_TIDDLER_TOOLS.has(tool) || typeof args !== 'object' || args === null) return undefined;
  const title = (args as { title?: unknown }).title;
  return typeof title === 'string' && title ? title : undefined;
}

/** Messages as history entries, attachments read from the agent's view (also what a compaction summarizes). */
export function historyEntries(ctx: TurnContext, messages: Message[]) {
  return buildHistory(
    messages,
    ctx.agent['agent-tool-protocol'],
    (title, message) => imageAttachment(ctx, title, message) ?? { text: attachmentBlock(ctx, title) },
  );
}

/** An attached tiddler as the model sees it: its rendered text, labelled as untrusted data. */
function attachmentBlock(ctx: TurnContext, title: string): string {
  const words = promptWords(ctx.words);
  const view = ctx.store.wiki.agentView();
  const fields = view.getFields(title);
  if (!fields) return fill(words.attachedMissing, { title });
  // An SVG renders as a picture, with no text: the model gets its source, which it can read.
  if (fields.type === 'image/svg+xml') return `${fill(words.attachedSvg, { title })} ${UNTRUSTED_NOTE}\n${tiddlerBlock(fields)}`;
  // A PDF's text is extracted when first read (tools/documents.ts), by the tool that shows its pages.
  if (isPdfTiddler(fields)) return `${fill(words.attached, { title })} ${UNTRUSTED_NOTE}\n${tiddlerBlock(fields, { text: PDF_ATTACHED })}`;
  const text = view.renderPlainText(title);
  return `${fill(words.attached, { title })} ${UNTRUSTED_NOTE}\n${tiddlerBlock(fields, { text })}`;
}

/** The "Current tiddler" section: every field and the raw text, labelled as data. */
export function currentTiddlerSection(fields: Record<string, string> | undefined, title: string, words = ENGLISH_PROMPT_WORDS): string {
  if (!fields) return fill(words.currentTiddlerMissing, { title });
  return [
    `${fill(words.currentTiddler, { title })} ${UNTRUSTED_NOTE}`,
    // An image's base64 is no text to edit (wiki-read shows the image itself).
    tiddlerBlock(fields, { full: true, ...(isBinaryType(fields.type) ? { text: `(${fields.type} content, not shown here)` } : {}) }),
  ].join('\n');
}

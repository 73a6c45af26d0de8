/*\
Built-in plugin: prompt assembly. The agent's system prompt (wikitext rendered to plain
text), the "Current tiddler" section (seed 002: the authoritative text of the tiddler being
worked on, re-read from the wiki every round, never trimmed; the reply records the version it
showed as read, store/read-ledger.ts) and the chat history. What the model reads of the wiki
here (the Current tiddler, attachments) comes from the agent's view, where hidden tiddlers do
not exist, like everything its tools read. Image tiddlers (attached, or returned by a tool)
become image parts (engine/images.ts). A compaction summary takes the place of the turns it
replaced (engine/compaction.ts).
\*/
import type { EnginePlugin, TurnContext } from '../hooks';
import { isBinaryType, tiddlerBlock, UNTRUSTED_NOTE } from '../../tools/format';
import { buildHistory } from '../history';
import { selectHistory } from '../context';
import { imageAttachment } from '../images';
import { liveHistory, summaryPromptMessage } from '../compaction';
import { fingerprint } from '../../store/fingerprint';
import type { Message } from '../../store/schemas';
import { ENGLISH_PROMPT_WORDS, fill, promptWords } from '../prompt-words';

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
      const fields = current ? ctx.store.wiki.agentView().getFields(current) : undefined;
      const section = current ? currentTiddlerSection(fields, current, words) : undefined;
      // The section shows this version as the tiddler's current one: the reply's calls may write over it.
      if (current && fields) build.reads[current] = fingerprint(fields);
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
  },
};

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

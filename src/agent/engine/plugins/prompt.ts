/*\
Built-in plugin: prompt assembly. The agent's system prompt (wikitext rendered to plain
text), the "Current tiddler" section (seed 002: the authoritative text of the tiddler being
worked on, re-read from the wiki every round, never trimmed) and the chat history. What the
model reads of the wiki here (the Current tiddler, attachments) comes from the agent's view,
where hidden tiddlers do not exist, like everything its tools read. Image tiddlers (attached,
or returned by a tool) become image parts (engine/images.ts).
\*/
import type { EnginePlugin, TurnContext } from '../hooks';
import { isBinaryType, tiddlerBlock, UNTRUSTED_NOTE } from '../../tools/format';
import { buildHistory } from '../history';
import { selectHistory } from '../context';
import { imageAttachment } from '../images';

export const CURRENT_TIDDLER_FIELD = 'agent-current-tiddler';

export const promptPlugin: EnginePlugin = {
  name: 'prompt',
  apply(hooks) {
    hooks.processPrompts.tap('prompt', (build, ctx) => {
      const system = ctx.store.renderSystemPrompt(ctx.agent.title, ctx.chat);
      if (system) build.sections.push({ id: 'system', kind: 'system', protected: true, messages: [{ role: 'system', content: system }] });
      const current = ctx.store.wiki.getFields(ctx.chat)?.[CURRENT_TIDDLER_FIELD];
      // A failed write names its target as the Current tiddler, even when that is a chat.
      const section = current ? currentTiddlerSection(ctx.store.wiki.agentView().getFields(current), current) : undefined;
      if (section) build.sections.push({ id: 'current-tiddler', kind: 'transient', protected: true, placeBeforeLastUser: true, messages: [{ role: 'system', content: section }] });
      const entries = buildHistory(build.history, ctx.agent['agent-tool-protocol'], (title, message) => imageAttachment(ctx, title, message) ?? { text: attachmentBlock(ctx, title) });
      build.sections.push({ id: 'history', kind: 'history', messages: selectHistory(entries) });
    });
  },
};

/** An attached tiddler as the model sees it: its rendered text, labelled as untrusted data. */
function attachmentBlock(ctx: TurnContext, title: string): string {
  const view = ctx.store.wiki.agentView();
  const fields = view.getFields(title);
  if (!fields) return `[Attached tiddler "${title}" is not available.]`;
  // An SVG renders as a picture, with no text: the model gets its source, which it can read.
  if (fields.type === 'image/svg+xml') return `Attached tiddler "${title}" (its SVG source). ${UNTRUSTED_NOTE}\n${tiddlerBlock(fields)}`;
  const text = view.renderPlainText(title);
  return `Attached tiddler "${title}" (its rendered text). ${UNTRUSTED_NOTE}\n${tiddlerBlock(fields, { text })}`;
}

/** The "Current tiddler" section: every field and the raw text, labelled as data. */
export function currentTiddlerSection(fields: Record<string, string> | undefined, title: string): string {
  if (!fields) return `Current tiddler: "${title}" does not exist (any more).`;
  return [
    `Current tiddler: the authoritative, up-to-date content of "${title}". Copy find snippets from here and send its modified value with writes. ${UNTRUSTED_NOTE}`,
    // An image's base64 is no text to edit (wiki-read shows the image itself).
    tiddlerBlock(fields, { full: true, ...(isBinaryType(fields.type) ? { text: `(${fields.type} content, not shown here)` } : {}) }),
  ].join('\n');
}

/*\
"Copy chat", in the chat's footer: the messages the chat shows (its active branch: parked
versions are not part of it), the user's and the agent's words only, as Markdown-style
plain text on the clipboard, each under its speaker's name in the UI's language.
\*/
import { el, type ChatContext } from './chat-context';
import type { ListedMessage } from './turn-actions';

/** The chat as text: "**You:**", the words, "**Assistant:**", the reply… */
export function chatAsText(ctx: ChatContext, messages: readonly ListedMessage[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    if (m.role !== 'user' && m.role !== 'assistant') continue;
    const text = String(ctx.wiki.getTiddler(m.title)?.fields.text ?? '').trim();
    // A reply that only called tools has no words of its own.
    if (text) parts.push(`**${ctx.lingo(`Role/${m.role}`)}:**\n\n${text}`);
  }
  return parts.join('\n\n');
}

export function copyChatButton(ctx: ChatContext, messages: () => readonly ListedMessage[]): HTMLElement {
  const button = el(ctx.document, 'button', 'tc-btn-invisible tc-ai-copy-chat', ctx.lingo('Copy/Chat'));
  button.setAttribute('type', 'button');
  button.setAttribute('data-ai-action', 'copy-chat');
  button.addEventListener('click', () => $tw.utils.copyToClipboard(chatAsText(ctx, messages())));
  return button;
}

/*\
Under a reply: the memories its prompt carried (`agent-memories`, engine/plugins/memory.ts), as
chips that show the fact and open the memory's tiddler. A memory deleted since is left out, and
so is a title that is no memory (a hand-edited or forged field must not show a tiddler's text).
\*/
import { MEMORY_TAG } from '../store/memory';
import { el, type ChatContext } from './chat-context';

/** The longest fact shown on a chip (characters); the whole fact is its tooltip. */
const CHIP_CHARS = 60;

export function renderMemoriesUsed(ctx: ChatContext, fields: Record<string, unknown>): HTMLElement | undefined {
  const isMemory = (title: string) => (ctx.wiki.getTiddler(title)?.fields.tags as string[] | undefined)?.includes(MEMORY_TAG) ?? false;
  const titles = ($tw.utils.parseStringArray(String(fields['agent-memories'] ?? '')) ?? []).filter(isMemory);
  if (!titles.length) return undefined;
  const line = el(ctx.document, 'div', 'tc-ai-message-memories');
  line.appendChild(el(ctx.document, 'span', 'tc-ai-message-memories-label', ctx.lingo('Memory/Used')));
  for (const title of titles) {
    const fact = String(ctx.wiki.getTiddler(title)?.fields.text ?? '').trim();
    const chip = el(ctx.document, 'a', 'tc-ai-chip tc-ai-memory-chip', fact.length > CHIP_CHARS ? `${fact.slice(0, CHIP_CHARS - 1)}…` : fact);
    chip.setAttribute('data-title', title);
    chip.setAttribute('title', fact);
    chip.setAttribute('href', `#${encodeURIComponent(title)}`);
    chip.addEventListener?.('click', (event: Event) => {
      event.preventDefault();
      ctx.navigate(title);
    });
    line.appendChild(chip);
  }
  return line;
}

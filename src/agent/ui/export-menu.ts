/*\
The chat's Export control (in its footer): a button that opens three choices, a JSON tiddler
bundle and Markdown (downloaded through TiddlyWiki's tm-download-file) and a transcript
tiddler made in this wiki (runner/transfer.ts). While a turn runs the export holds what is
finished, and the line beside the button says so.
\*/
import { lib } from './library';
import { el, type ChatContext } from './chat-context';

/** Where a download's text waits for tm-download-file to render it (hidden from the agent). */
const DOWNLOAD_TIDDLER = '$:/temp/tiddlyagent/export';
const FORMATS = [
  ['json', 'Transfer/Export/Json'],
  ['markdown', 'Transfer/Export/Markdown'],
  ['wikitext', 'Transfer/Export/Wikitext'],
] as const;

export class ExportMenu {
  readonly element: HTMLElement;
  private readonly menu: HTMLElement;
  private readonly toggle: HTMLElement;
  private readonly result: HTMLElement;

  constructor(
    private readonly ctx: ChatContext,
    private readonly dispatch: (event: { type: string; param?: string; paramObject?: Record<string, string> }) => void,
  ) {
    const doc = ctx.document;
    this.element = el(doc, 'div', 'tc-ai-export');
    this.toggle = el(doc, 'button', 'tc-btn-invisible tc-ai-export-toggle', ctx.lingo('Transfer/Export/Button'));
    this.toggle.setAttribute('type', 'button');
    this.toggle.setAttribute('title', ctx.lingo('Transfer/Export/Hint'));
    this.toggle.setAttribute('aria-expanded', 'false');
    this.menu = el(doc, 'div', 'tc-ai-export-menu');
    this.menu.setAttribute('role', 'group');
    this.menu.setAttribute('aria-label', ctx.lingo('Transfer/Export/Hint'));
    this.menu.setAttribute('hidden', '');
    for (const [format, key] of FORMATS) {
      const button = el(doc, 'button', 'tc-btn-invisible', ctx.lingo(key));
      button.setAttribute('type', 'button');
      button.setAttribute('data-ai-export', format);
      button.addEventListener('click', () => this.export(format));
      this.menu.appendChild(button);
    }
    this.result = el(doc, 'span', 'tc-ai-export-result');
    this.result.setAttribute('role', 'status');
    this.toggle.addEventListener('click', () => this.show(this.menu.hasAttribute('hidden')));
    this.element.append(this.toggle, this.menu, this.result);
  }

  private show(open: boolean): void {
    if (open) this.menu.removeAttribute('hidden');
    else this.menu.setAttribute('hidden', '');
    this.toggle.setAttribute('aria-expanded', String(open));
  }

  private export(format: (typeof FORMATS)[number][0]): void {
    this.show(false);
    try {
      const result = lib().exportChat(this.ctx.wiki, this.ctx.chat, format);
      if (result.file) {
        this.ctx.wiki.addTiddler({ title: DOWNLOAD_TIDDLER, type: 'text/plain', text: result.file.text } as never);
        this.dispatch({ type: 'tm-download-file', param: DOWNLOAD_TIDDLER, paramObject: { filename: result.file.name, type: result.file.type } });
        this.ctx.wiki.deleteTiddler(DOWNLOAD_TIDDLER);
      } else if (result.tiddler) this.ctx.navigate(result.tiddler);
      const done = this.ctx.lingo('Transfer/Export/Done').replace('$name$', result.file?.name ?? result.tiddler ?? '');
      this.result.textContent = result.running ? `${done} ${this.ctx.lingo('Transfer/Export/Running')}` : done;
    } catch (e) {
      this.result.textContent = `${this.ctx.lingo('Transfer/Export/Failed')} ${(e as Error).message}`;
    }
  }
}

/*\
<$ai-import/>: the Import button of the Chats tab (a tool tagged $:/tags/AI/ChatsTool) and the
report of the last import. The file is refused above the size cap before it is read; a file
that reads is planned whole and written only when all of it checks out (runner/services/transfer.ts),
so the report is either "imported N, could not map …" or "nothing was imported: why". The
report lives in a temp tiddler, so it survives the tab re-rendering.
\*/
import { widget as Widget } from '$:/core/modules/widgets/widget.js';
import type { IChangedTiddlers } from 'tiddlywiki';
import { lib } from './library';
import { lingo, LANGUAGE_SETTING } from './lingo';
import { el } from './chat-context';

export const IMPORT_REPORT = '$:/temp/tiddlyagent/import-report';

interface Report {
  name: string;
  error?: string;
  created?: string[];
  notMapped?: string[];
}

class AiImportWidget extends Widget {
  override render(parent: Element, nextSibling: Element | null): void {
    this.parentDomNode = parent;
    this.computeAttributes();
    const doc = this.document as unknown as Document;
    const words = (key: string) => lingo(this.wiki, key);
    const root = el(doc, 'div', 'tc-ai-import');
    const input = doc.createElement('input');
    input.type = 'file';
    input.accept = '.json,.tid,application/json';
    input.hidden = true;
    input.setAttribute('aria-hidden', 'true');
    input.tabIndex = -1;
    const button = el(doc, 'button', 'tc-btn-invisible tc-ai-import-button', words('Transfer/Import/Button'));
    button.setAttribute('type', 'button');
    button.setAttribute('title', words('Transfer/Import/Hint'));
    button.addEventListener('click', () => input.click());
    input.addEventListener('change', () => {
      const file = input.files?.[0];
      input.value = '';
      if (file) void this.importFile(file);
    });
    // appendChild: TiddlyWiki's fake DOM (a sidebar rendered to text under Node) has no append().
    for (const child of [button, input, this.renderReport(doc, words)]) root.appendChild(child);
    parent.insertBefore(root, nextSibling);
    this.domNodes.push(root);
  }

  private async importFile(file: File): Promise<void> {
    const name = file.name;
    try {
      lib().checkImportSize(name, file.size);
      this.setReport({ name, reading: true });
      const plan = lib().importText(this.wiki, name, await file.text());
      this.setReport({ name, created: plan.created, notMapped: plan.notMapped });
    } catch (e) {
      this.setReport({ name, error: e instanceof Error ? e.message : String(e) });
    }
  }

  private setReport(report: Report & { reading?: boolean }): void {
    this.wiki.addTiddler({ title: IMPORT_REPORT, type: 'application/json', text: JSON.stringify(report) } as never);
  }

  private renderReport(doc: Document, words: (key: string) => string): HTMLElement {
    const box = el(doc, 'div', 'tc-ai-import-report');
    box.setAttribute('role', 'status');
    let report: (Report & { reading?: boolean }) | undefined;
    try {
      report = JSON.parse(this.wiki.getTiddlerText(IMPORT_REPORT) ?? 'null') as Report | undefined;
    } catch {
      report = undefined;
    }
    if (!report) return box;
    box.setAttribute('data-result', report.error ? 'failed' : report.reading ? 'reading' : 'done');
    if (report.reading) {
      box.textContent = words('Transfer/Import/Reading').replace('$name$', report.name);
      return box;
    }
    if (report.error) {
      box.appendChild(el(doc, 'p', 'tc-ai-import-error', `${words('Transfer/Import/Failed').replace('$name$', report.name)} ${report.error}`));
    } else {
      const created = report.created ?? [];
      box.appendChild(el(doc, 'p', '', words('Transfer/Import/Imported').replace('$count$', String(created.length)).replace('$name$', report.name)));
      const list = el(doc, 'ul', 'tc-ai-import-created');
      for (const title of created) {
        const item = el(doc, 'li', '');
        const link = el(doc, 'a', 'tc-tiddlylink', title);
        link.setAttribute('href', `#${encodeURIComponent(title)}`);
        link.addEventListener('click', (event) => {
          event.preventDefault();
          this.dispatchEvent({ type: 'tm-navigate', navigateTo: title });
        });
        item.appendChild(link);
        list.appendChild(item);
      }
      box.appendChild(list);
      if (report.notMapped?.length) {
        box.appendChild(el(doc, 'p', '', words('Transfer/Import/NotMapped')));
        const missing = el(doc, 'ul', 'tc-ai-import-not-mapped');
        for (const line of report.notMapped) missing.appendChild(el(doc, 'li', '', line));
        box.appendChild(missing);
      }
    }
    const dismiss = el(doc, 'button', 'tc-btn-invisible tc-ai-import-dismiss', words('Transfer/Import/Dismiss'));
    dismiss.setAttribute('type', 'button');
    dismiss.addEventListener('click', () => this.wiki.deleteTiddler(IMPORT_REPORT));
    box.appendChild(dismiss);
    return box;
  }

  override refresh(changed: IChangedTiddlers): boolean {
    if (changed[IMPORT_REPORT] || changed[LANGUAGE_SETTING]) {
      this.refreshSelf();
      return true;
    }
    return false;
  }
}

export { AiImportWidget as 'ai-import' };

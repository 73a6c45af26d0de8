/*\
<$ai-ask-changes state=…/>: the change Ask AI proposes (ask-ai-widget.ts), shown as an approval
card shows a change (change-view.ts): the places the text changes with a little context, the
active content the new text would carry, the whole text one click away. It follows the state
tiddler, so an edit to the proposal in the panel shows at once.
\*/
import { widget as Widget } from '$:/core/modules/widgets/widget.js';
import type { IChangedTiddlers } from 'tiddlywiki';
import { renderChanges } from '../change-view';
import { lingo, LANGUAGE_SETTING } from '../lingo';

class AskChangesWidget extends Widget {
  override render(parent: Element, nextSibling: Element | null): void {
    this.parentDomNode = parent;
    this.computeAttributes();
    const doc = this.document as unknown as Document;
    const box = doc.createElement('div');
    box.className = 'tc-ai-ask-changes';
    const fields: Record<string, unknown> = this.wiki.getTiddler(this.getAttribute('state', ''))?.fields ?? {};
    const title = String(fields.target ?? '');
    const text = (name: string) => String(fields[name] ?? '');
    renderChanges(
      {
        document: doc,
        lingo: (key) => lingo(this.wiki, key),
        navigate: (to) => this.dispatchEvent({ type: 'tm-navigate', navigateTo: to, navigateFromTitle: title }),
      },
      { [title]: { before: { title, text: text('original') }, after: { title, text: text('proposed') } } },
      box,
      'approval',
    );
    parent.insertBefore(box as unknown as Element, nextSibling);
    this.domNodes.push(box as unknown as Element);
  }

  override refresh(changed: IChangedTiddlers): boolean {
    const changedAttributes = this.computeAttributes();
    if (Object.keys(changedAttributes).length || changed[this.getAttribute('state', '')] || changed[LANGUAGE_SETTING]) {
      this.refreshSelf();
      return true;
    }
    return false;
  }
}

export { AskChangesWidget as 'ai-ask-changes' };

/*\
<$ai-wikitext text=…/>: renders text as wikitext under the safe rule set used for model
output. The message view template uses it, so a message tiddler opened on its own is as
safe as it is inside the chat.
\*/
import { widget as Widget } from '$:/core/modules/widgets/widget.js';
import type { IChangedTiddlers } from 'tiddlywiki';
import { page } from './library';

class AiWikitextWidget extends Widget {
  override render(parent: Element, nextSibling: Element | null): void {
    this.parentDomNode = parent;
    this.computeAttributes();
    this.execute();
    this.renderChildren(parent, nextSibling);
  }

  override execute(): void {
    this.makeChildWidgets(page().parseSafeWikitext(this.wiki, this.getAttribute('text', '')).tree);
  }

  override refresh(changed: IChangedTiddlers): boolean {
    if (this.computeAttributes().text) {
      this.refreshSelf();
      return true;
    }
    return this.refreshChildren(changed);
  }
}

export { AiWikitextWidget as 'ai-wikitext' };

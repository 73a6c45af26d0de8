/*\
The base of the plugin's action widgets (<$action-ai-stop>, <$action-ai-mcp-test>,
<$action-ai-ask>, …): they render nothing and do their work in invokeAction, with their
attributes read fresh.
\*/
import { widget as Widget } from '$:/core/modules/widgets/widget.js';
import type { IChangedTiddlers } from 'tiddlywiki';

export class ActionWidget extends Widget {
  override render(): void {
    this.computeAttributes();
    this.execute();
  }

  override refresh(changed: IChangedTiddlers): boolean {
    this.computeAttributes();
    return this.refreshChildren(changed);
  }
}

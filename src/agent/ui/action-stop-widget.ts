/*\
<$action-ai-stop chat=…/>: stops a chat's turn (and, through it, its sub-agents), as the
chat's own Stop button does, from a button anywhere (the background panel). In the server
edition the request goes to the server like every other; a refusal is logged.
\*/
import { widget as Widget } from '$:/core/modules/widgets/widget.js';
import type { IChangedTiddlers } from 'tiddlywiki';
import { lib } from './library';

class ActionStopWidget extends Widget {
  override render(parent: Element, nextSibling: Element | null): void {
    this.computeAttributes();
    this.execute();
  }

  override refresh(changed: IChangedTiddlers): boolean {
    this.computeAttributes();
    return this.refreshChildren(changed);
  }

  override invokeAction(): boolean {
    const chat = this.getAttribute('chat', '');
    if (chat) lib().getRunner().stop(chat).catch((e: unknown) => console.warn(`TiddlyAgent: could not stop "${chat}": ${e instanceof Error ? e.message : String(e)}`));
    return true;
  }
}

export { ActionStopWidget as 'action-ai-stop' };

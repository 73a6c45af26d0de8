/*\
<$action-ai-send chat message attachments agent new title navigate/>: sends a message into a
chat from a button (ui/ai-send.ts says what each attribute does). The chat sent into is the
variable `aiSendChat` for the widget's own action children, which run after the send (e.g.
an <$action-setfield> that remembers the new chat).
\*/
import { widget as Widget } from '$:/core/modules/widgets/widget.js';
import type { IChangedTiddlers, IWidgetEvent } from 'tiddlywiki';
import { aiSend, type AiSendParams } from './ai-send';

const ATTRIBUTES = ['chat', 'new', 'message', 'attachments', 'agent', 'title', 'navigate'] as const;

class ActionSendWidget extends Widget {
  override render(parent: Element, nextSibling: Element | null): void {
    this.computeAttributes();
    this.execute();
    this.renderChildren(parent, nextSibling);
  }

  override execute(): void {
    this.makeChildWidgets();
  }

  override refresh(changed: IChangedTiddlers): boolean {
    this.computeAttributes();
    return this.refreshChildren(changed);
  }

  override invokeAction(triggeringWidget: Widget, event: IWidgetEvent | null): boolean {
    const params: AiSendParams = {};
    for (const name of ATTRIBUTES) {
      const value = this.getAttribute(name);
      if (value !== undefined) params[name] = value;
    }
    const chat = aiSend(this.wiki as never, params, (title) =>
      this.dispatchEvent({ type: 'tm-navigate', navigateTo: title, navigateFromTitle: this.getVariable('storyTiddler') }),
    );
    if (chat) {
      this.setVariable('aiSendChat', chat);
      this.refreshChildren();
      this.invokeActions(triggeringWidget, event as IWidgetEvent);
    }
    return true;
  }

  /** Its children are actions run by invokeAction, not when a button invokes its descendants. */
  override allowActionPropagation(): boolean {
    return false;
  }
}

export { ActionSendWidget as 'action-ai-send' };

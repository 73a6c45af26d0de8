/*\
<$action-ai-chat do="send|stop|focus"/>: the chat keyboard shortcuts' action ($:/tags/KeyboardShortcut,
ui/shortcuts/). It acts on the chat whose composer (or any part) has the focus, else on the first
chat in the story river, by a `tc-ai-command` DOM event that the chat's <$ai-chat> widget handles:
the widget owns its composer and its runner requests. Send does nothing while the focus is in
another field (Ctrl+Enter there means something else).
\*/
import { ActionWidget } from './action-widget';
import { COMMAND_EVENT, type ChatCommand } from './chat-command';

class ActionChatWidget extends ActionWidget {
  override invokeAction(): boolean {
    const command = this.getAttribute('do', '') as ChatCommand;
    const doc = this.document as unknown as Document;
    if (!doc.querySelector) return true;
    const active = doc.activeElement;
    const focused = active?.closest('.tc-ai-chat');
    const editing = !!active && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName);
    if (command === 'send' && editing && !focused) return true;
    const chat = focused ?? doc.querySelector('.tc-story-river .tc-ai-chat');
    chat?.dispatchEvent(new (doc.defaultView ?? window).CustomEvent(COMMAND_EVENT, { detail: command }));
    return true;
  }
}

export { ActionChatWidget as 'action-ai-chat' };

/*\
<$action-ai-manage-chat do="rename|delete-forever" chat=… to=…/>: the Chats tab's rename and
"Delete forever", through the runner (in this page, or the server in the server edition): a
rename waits for a running turn in the chat's queue and moves everything keyed by the title
(runner/services/chat-move.ts). A title the runner would refuse is refused here first, in the user's
language; whatever the runner still refuses (the title was taken meanwhile) is shown as it says.
The outcome goes to `$:/temp/tiddlyagent/chats/result` (field `chat`, `ok`: yes | no; text:
why not), which the tab shows under the chat.
\*/
import { ActionWidget } from './action-widget';
import { lib } from './library';
import { lingo } from './lingo';
import { requestErrorText } from './runner-error';

export const MANAGE_RESULT = '$:/temp/tiddlyagent/chats/result';

class ManageChatWidget extends ActionWidget {
  override invokeAction(): boolean {
    const chat = this.getAttribute('chat', '');
    const action = this.getAttribute('do', '');
    if (!chat) return true;
    const wiki = this.wiki;
    const refused = (text: string) => wiki.addTiddler({ title: MANAGE_RESULT, chat, ok: 'no', text });
    const done = () => wiki.addTiddler({ title: MANAGE_RESULT, chat, ok: 'yes', text: '' });
    const failed = (e: unknown) => refused(requestErrorText(wiki, e));
    const agent = lib();
    if (action === 'rename') {
      const to = this.getAttribute('to', '').trim();
      if (to === chat) return true;
      const problem = agent.titleProblem(agent.createTiddlyWikiPort(wiki as never), to);
      if (problem) {
        refused(lingo(wiki, `Chats/Refused/${problem}`).replace('$title$', to));
        return true;
      }
      agent.getRunner().submit({ kind: 'rename', chat, to }).then(done, failed);
    } else if (action === 'delete-forever') {
      agent.getRunner().submit({ kind: 'delete-chat', chat }).then(done, failed);
    }
    return true;
  }
}

export { ManageChatWidget as 'action-ai-manage-chat' };

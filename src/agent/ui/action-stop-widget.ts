/*\
<$action-ai-stop chat=…/>: stops a chat's turn (and, through it, its sub-agents), as the
chat's own Stop button does, from a button anywhere (the background panel). In the server
edition the request goes to the server like every other; a refusal is logged.
\*/
import { ActionWidget } from './action-widget';
import { page } from './library';

class ActionStopWidget extends ActionWidget {
  override invokeAction(): boolean {
    const chat = this.getAttribute('chat', '');
    if (chat)
      page()
        .getRunner()
        .submit({ kind: 'stop', chat })
        .catch((e: unknown) => console.warn(`TiddlyAgent: could not stop "${chat}": ${e instanceof Error ? e.message : String(e)}`));
    return true;
  }
}

export { ActionStopWidget as 'action-ai-stop' };

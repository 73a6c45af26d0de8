/*\
The `tm-ai-send` message, for wikitext that sends with <$action-sendmessage $message="tm-ai-send"
chat=… message=… attachments=…/> (the same params as <$action-ai-send>'s attributes, ui/ai-send.ts):
the page's root widget handles it, so it works from anywhere in the page.
\*/
import { aiSend, type AiSendParams } from './ai-send';

export const name = 'tiddlyagent-send-message';
export const platforms = ['browser'];
export const after = ['rootwidget'];
export const synchronous = true;

export function startup(): void {
  $tw.rootWidget.addEventListener('tm-ai-send', (event) => {
    // `param` alone is the message: <$action-sendmessage $message="tm-ai-send" $param="Hello"/>.
    const params: AiSendParams = { ...(event.paramObject as AiSendParams | undefined) };
    if (params.message === undefined && event.param) params.message = event.param;
    aiSend($tw.wiki as never, params, (title) => $tw.rootWidget.dispatchEvent({ type: 'tm-navigate', navigateTo: title }));
    return false;
  });
}

/*\
What <$action-ai-send> and the `tm-ai-send` message do (wikitext's way to talk to an agent,
e.g. a "Summarize this tiddler" button): send a message, with tiddlers attached, into a chat
through the ChatRunner, so it runs where the chat's turns run (this page, or the server in
the server edition) and, during a turn, waits in the chat's queue as a typed message does.

`chat` names an existing chat; without it, or with `new="yes"`, a new chat is made (as the
New chat button makes one: `agent` or the default agent, titled `title` or "Chat", made
unique). A new chat is opened in the story river unless `navigate="no"`; an existing one only
with `navigate="yes"`. Nothing is made when the message is empty or `chat` names no chat:
the reason goes to the browser console, as a refused Stop of <$action-ai-stop> does.
\*/
import { CONFIG, configValue } from '../store/config';
import { newChatFields } from '../store/new-chat';
import { page } from './library';
import { lingo } from './lingo';

/** The attributes of <$action-ai-send>, the params of `tm-ai-send`. */
export interface AiSendParams {
  chat?: string;
  new?: string;
  message?: string;
  /** A title list, as the composer's chips: `[[A tiddler]] Another`; or exactly the title of a tiddler. */
  attachments?: string;
  agent?: string;
  title?: string;
  navigate?: string;
}

interface SendWiki {
  getTiddler(title: string): { fields: Record<string, unknown> } | undefined;
  getTiddlerText(title: string, fallback?: string): string | undefined;
  tiddlerExists(title: string): boolean;
  isShadowTiddler(title: string): boolean;
  generateNewTitle(base: string): string;
  addTiddler(fields: Record<string, unknown>): void;
  getCreationFields(): Record<string, unknown>;
  getModificationFields(): Record<string, unknown>;
}

/** Send as the params say; returns the chat sent into (undefined when nothing was sent). */
export function aiSend(wiki: SendWiki, params: AiSendParams, navigate: (title: string) => void): string | undefined {
  const message = (params.message ?? '').trim();
  const warn = (why: string) => console.warn(`TiddlyAgent: <$action-ai-send>/tm-ai-send: ${why}`);
  if (!message) {
    warn('the message is empty; nothing was sent.');
    return undefined;
  }
  // `attachments=<<currentTiddler>>` must attach "Garden plan", not "Garden" and "plan".
  const list = params.attachments ?? '';
  const attachments = wiki.tiddlerExists(list) || wiki.isShadowTiddler(list) ? [list] : ($tw.utils.parseStringArray(list, true) ?? []);
  const named = (params.chat ?? '').trim();
  const fresh = !named || params.new === 'yes';
  let chat = named;
  if (fresh) {
    const agent = (params.agent ?? '').trim() || configValue(wiki, CONFIG.defaultAgent);
    chat = wiki.generateNewTitle((params.title ?? '').trim() || lingo(wiki, 'NewChat/BaseTitle') || 'Chat');
    wiki.addTiddler(newChatFields(chat, agent, { ...wiki.getCreationFields(), ...wiki.getModificationFields() }));
  } else if (wiki.getTiddler(chat)?.fields.agent === undefined) {
    warn(`"${chat}" is not a chat (a tiddler with an agent field); nothing was sent.`);
    return undefined;
  }
  page()
    .getRunner()
    .submit({ kind: 'send', chat, text: message, attachments })
    .catch((e: unknown) => warn(`could not send into "${chat}": ${e instanceof Error ? e.message : String(e)}`));
  if (params.navigate === 'yes' || (fresh && params.navigate !== 'no')) navigate(chat);
  return chat;
}

/*\
Filter operator `aimemorychat`, for a chat's memory review list: for each input memory, the
chat its proposal came from and every chat above it. Its `memory-source` is a message (the chat
is the message's `agent-chat`; a message gone since is placed by its title,
`$:/ai/messages/<chat>/<seq>`) or a chat; a sub-agent's chat (`agent-parent`) leads up to the
user's chat that spawned it, so what a sub-agent proposes waits for review in the chat the user
sees (and in the sub-agent's own). Nothing for a memory with no source. Reads only the wiki it
is given.
\*/
type Fields = Record<string, unknown>;
type Source = (iterator: (tiddler: unknown, title: string) => void) => void;

const MESSAGE_PREFIX = '$:/ai/messages/';
/** A chain of `agent-parent` longer than this is a loop someone made by hand. */
const MAX_CHAIN = 50;

export function aimemorychat(source: Source, _operator: unknown, options: { wiki: { getTiddler(title: string): { fields: Fields } | undefined } }): string[] {
  const fieldsOf = (title: string) => options.wiki.getTiddler(title)?.fields;
  const out = new Set<string>();
  source((_tiddler, memory) => {
    const from = fieldsOf(memory)?.['memory-source'];
    if (typeof from !== 'string' || !from) return;
    const message = fieldsOf(from);
    let chat: string | undefined;
    if (typeof message?.['agent-chat'] === 'string') chat = message['agent-chat'];
    else if (message?.agent !== undefined) chat = from;
    else if (from.startsWith(MESSAGE_PREFIX) && from.lastIndexOf('/') > MESSAGE_PREFIX.length) chat = from.slice(MESSAGE_PREFIX.length, from.lastIndexOf('/'));
    for (let i = 0; chat && i < MAX_CHAIN; i++) {
      out.add(chat);
      const parent = fieldsOf(chat)?.['agent-parent'];
      chat = typeof parent === 'string' ? parent : undefined;
    }
  });
  return [...out];
}

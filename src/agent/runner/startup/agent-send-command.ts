/*\
`tiddlywiki <wiki> --agent-send "<chat>" "<message>"`: run one turn to completion in the
Node.js edition, without a server (for scripts and cron). The turn runs in this process with
the keys from the environment variables named by the profiles' `api-key-name`; its tiddlers
are saved by the wiki's sync adaptor (the filesystem plugin) before the command ends. Prints
the reply and how many tiddlers it saved; fails (non-zero exit) when the chat does not exist,
the turn failed or was canceled, or it waits for the user (an approval or a question). A wiki
with no sync adaptor (a folder whose tiddlywiki.info lacks tiddlywiki/filesystem) could save
nothing: the command refuses to run the turn unless a later command of the same run (such as
--savewiki or --build) can write the wiki out, and then says that it saved nothing itself.
\*/
import type * as Library from '$:/plugins/tiddlyagent/agent/lib.js';

export const info = { name: 'agent-send', synchronous: false };

/** How long to wait for the sync adaptor to save the turn's tiddlers. */
const SAVE_TIMEOUT_MS = 30_000;

interface Commander {
  wiki: {
    getTiddler(title: string): { fields: Record<string, unknown> } | undefined;
    addEventListener(type: 'change', listener: (changes: Record<string, unknown>) => void): void;
    removeEventListener(type: 'change', listener: (changes: Record<string, unknown>) => void): void;
  };
  streams: { output: { write(text: string): void }; error?: { write(text: string): void } };
  commandTokens: string[];
  nextToken: number;
}

const NO_ADAPTOR = 'this wiki has no sync adaptor (add "tiddlywiki/filesystem" to the plugins in its tiddlywiki.info), so the turn\'s tiddlers cannot be saved';

export class Command {
  constructor(
    private readonly params: string[],
    private readonly commander: Commander,
    private readonly callback: (error?: string | null) => void,
  ) {}

  execute(): string | null {
    const [chat, message] = this.params;
    if (!chat || message === undefined) return 'Usage: --agent-send "<chat title>" "<message>"';
    const tiddler = this.commander.wiki.getTiddler(chat);
    if (!tiddler) return `The chat "${chat}" does not exist.`;
    if (typeof tiddler.fields.agent !== 'string') return `"${chat}" is not a chat: it has no "agent" field.`;
    const canSave = !!syncer();
    // A later command of this run (--savewiki, --build, --render…) may write the wiki out instead.
    const laterCommands = this.commander.commandTokens.slice(this.commander.nextToken).some((token) => token.startsWith('--'));
    if (!canSave && !laterCommands) return `agent-send "${chat}": ${NO_ADAPTOR}. Nothing was sent.`;
    const changed = new Set<string>();
    const onChange = (changes: Record<string, unknown>) => {
      for (const title of Object.keys(changes)) if (!/^\$:\/(temp|state)\//.test(title)) changed.add(title);
    };
    this.commander.wiki.addEventListener('change', onChange);
    const lib = require('$:/plugins/tiddlyagent/agent/lib.js') as typeof Library;
    const runner = lib.getLocalRunner();
    runner
      .submit({ kind: 'send', chat, text: message })
      .then(async (result) => {
        runner.dispose();
        // A first turn on a default title ("Chat") renames the chat to its automatic title.
        const now = $tw.wiki.filterTiddlers('[field:agent-renamed-from<chat>has[agent]]', $tw.rootWidget.makeFakeWidgetWithVariables({ chat }))[0];
        if (now) this.commander.streams.output.write(`(The chat "${chat}" is now titled "${now}".)\n`);
        const messages = runner.store.listMessages(now ?? chat);
        const start = messages.map((m) => m.role).lastIndexOf('user');
        const turn = messages.slice(start + 1);
        const reply = turn.filter((m) => m.role === 'assistant' && m.text.trim()).at(-1);
        if (reply) this.commander.streams.output.write(`${reply.text}\n`);
        if (!(await saved())) return this.callback(`agent-send "${chat}": the turn's tiddlers were not all saved within ${SAVE_TIMEOUT_MS / 1000} s.`);
        this.commander.wiki.removeEventListener('change', onChange);
        if (canSave) this.commander.streams.output.write(`(Saved ${changed.size} changed tiddler${changed.size === 1 ? '' : 's'}.)\n`);
        else
          (this.commander.streams.error ?? this.commander.streams.output).write(
            `agent-send "${chat}": ${NO_ADAPTOR}; only a later command of this run can write them out.\n`,
          );
        if (result.status === 'completed') return this.callback(null);
        const why =
          result.status === 'input-required'
            ? 'the turn waits for the user (an approval or a question); open the chat to answer'
            : result.error || `the turn ended ${result.status}`;
        this.callback(`agent-send "${chat}": ${why}`);
      })
      .catch((e: unknown) => this.callback(`agent-send "${chat}": ${e instanceof Error ? e.message : String(e)}`));
    return null;
  }
}

/** Whether the sync adaptor saved every change in time (true at once when the wiki has none). */
function saved(): Promise<boolean> {
  const sync = syncer();
  if (!sync) return Promise.resolve(true);
  const started = Date.now();
  return new Promise((resolve) => {
    const check = () => {
      if (!sync.isDirty()) resolve(true);
      else if (Date.now() - started > SAVE_TIMEOUT_MS) resolve(false);
      else setTimeout(check, 50);
    };
    // Change events reach the syncer on the next tick: look after they have.
    setTimeout(check, 0);
  });
}

/** The wiki's syncer, when it has a sync adaptor to save through. */
function syncer(): { isDirty(): boolean } | undefined {
  return ($tw as unknown as { syncer?: { isDirty(): boolean } }).syncer;
}

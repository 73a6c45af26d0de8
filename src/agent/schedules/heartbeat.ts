/*\
Heartbeats: an agent definition's `agent-heartbeat-interval` (seconds, at least 60; 0 is
off), `agent-heartbeat-message` and `agent-heartbeat-active-hours` wake every chat of that
agent which opted in (chat field `agent-heartbeat: yes`) and is not a sub-agent's hidden
chat. A heartbeat is an `interval` schedule that lives in no tiddler of its own, so the
scheduler runs both the same way; its next run is kept on the chat (`agent-heartbeat-next`)
so every page can show it.
\*/
import { ChatStore } from '../store/chat-store';
import { LISTED_CHAT_STEPS } from '../store/listed-chats';
import type { WikiPort } from '../store/wiki-port';
import { parseActiveHours, type Schedule } from './schedule';

/** Chat field: `yes` when the chat wants its agent's heartbeat. */
export const CHAT_HEARTBEAT = 'agent-heartbeat';
/** Chat field: when the heartbeat wakes the chat next (ISO 8601), written by the scheduler. */
export const CHAT_HEARTBEAT_NEXT = 'agent-heartbeat-next';
export const HEARTBEAT_SOURCE = 'heartbeat:';
const DEFAULT_MESSAGE = 'Heartbeat: check whether anything in this chat needs doing now. If nothing does, reply briefly.';

export type HeartbeatEntry = { agent: string; schedule: Schedule; problem?: undefined } | { agent: string; schedule?: undefined; problem: string };
type Beat = Omit<Schedule, 'chat' | 'title'>;

/** An agent's heartbeat as a schedule without its chat, undefined when it has none (or 0), or a ConfigError. */
export function heartbeatOf(store: ChatStore, agent: string): Beat | undefined {
  const definition = store.readAgent(agent);
  const interval = definition['agent-heartbeat-interval'];
  if (!interval) return undefined;
  const hours = definition['agent-heartbeat-active-hours'];
  return {
    kind: 'interval',
    interval,
    activeHours: hours ? parseActiveHours(hours) : undefined,
    message: definition['agent-heartbeat-message']?.trim() || DEFAULT_MESSAGE,
    runCount: 0,
    enabled: true,
  };
}

/** Why an agent's heartbeat cannot run, or ''. */
export function heartbeatProblem(wiki: WikiPort, agent: string): string {
  try {
    heartbeatOf(new ChatStore(wiki), agent);
    return '';
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * The heartbeat of every opted-in chat, as a schedule, or its agent's problem. It starts from
 * the opted-in chats (the field index), never from a scan or the tag index, which TiddlyWiki
 * rebuilds after every change: the scheduler looks again on changes.
 */
export function heartbeats(wiki: WikiPort): HeartbeatEntry[] {
  const store = new ChatStore(wiki);
  const beats = new Map<string, Beat | undefined | Error>();
  const out: HeartbeatEntry[] = [];
  for (const chat of wiki.filter(`[field:agent-heartbeat[yes]has[agent]${LISTED_CHAT_STEPS}!has[draft.of]]`)) {
    const agent = wiki.getFields(chat)!.agent!;
    if (!beats.has(agent)) {
      try {
        beats.set(agent, heartbeatOf(store, agent));
      } catch (e) {
        beats.set(agent, e instanceof Error ? e : new Error(String(e)));
        out.push({ agent, problem: (e as Error).message ?? String(e) });
      }
    }
    const beat = beats.get(agent);
    if (beat && !(beat instanceof Error)) out.push({ agent, schedule: { ...beat, title: `${HEARTBEAT_SOURCE}${chat}`, chat } });
  }
  return out;
}

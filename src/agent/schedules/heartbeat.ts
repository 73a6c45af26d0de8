/*\
Heartbeats: an agent definition's `agent-heartbeat-interval` (seconds, at least 60; 0 is
off), `agent-heartbeat-message` and `agent-heartbeat-active-hours` wake every chat of that
agent which opted in (chat field `agent-heartbeat: yes`) and is not a sub-agent's hidden
chat. A heartbeat is an `interval` schedule that lives in no tiddler of its own, so the
scheduler runs both the same way; its next run is kept on the chat (`agent-heartbeat-next`)
so every page can show it.
\*/
import { ChatStore } from '../store/chat-store';
import type { WikiPort } from '../store/wiki-port';
import { parseActiveHours, type Schedule } from './schedule';

/** Chat field: `yes` when the chat wants its agent's heartbeat. */
export const CHAT_HEARTBEAT = 'agent-heartbeat';
/** Chat field: when the heartbeat wakes the chat next (ISO 8601), written by the scheduler. */
export const CHAT_HEARTBEAT_NEXT = 'agent-heartbeat-next';
export const HEARTBEAT_SOURCE = 'heartbeat:';
const DEFAULT_MESSAGE = 'Heartbeat: check whether anything in this chat needs doing now. If nothing does, reply briefly.';

export type HeartbeatEntry = { agent: string; schedule: Schedule; problem?: undefined } | { agent: string; schedule?: undefined; problem: string };

/** The heartbeat of every agent that has one, as a schedule per opted-in chat, or the definition's problem. */
export function heartbeats(wiki: WikiPort): HeartbeatEntry[] {
  const store = new ChatStore(wiki);
  const out: HeartbeatEntry[] = [];
  for (const agent of wiki.filter('[all[shadows+tiddlers]tag[$:/tags/AI/Agent]!has[draft.of]has[agent-heartbeat-interval]]')) {
    let base: Omit<Schedule, 'chat' | 'title'>;
    try {
      const definition = store.readAgent(agent);
      const interval = definition['agent-heartbeat-interval'];
      if (!interval) continue; // 0: switched off
      const hours = definition['agent-heartbeat-active-hours'];
      base = {
        kind: 'interval',
        interval,
        activeHours: hours ? parseActiveHours(hours) : undefined,
        message: definition['agent-heartbeat-message']?.trim() || DEFAULT_MESSAGE,
        runCount: 0,
        enabled: true,
      };
    } catch (e) {
      out.push({ agent, problem: e instanceof Error ? e.message : String(e) });
      continue;
    }
    for (const chat of wiki.filter('[has[agent]field:agent<agent>field:agent-heartbeat[yes]!has[agent-parent]!has[agent-hidden]!has[draft.of]]', { agent })) {
      out.push({ agent, schedule: { ...base, title: `${HEARTBEAT_SOURCE}${chat}`, chat } });
    }
  }
  return out;
}

/*\
<$action-ai-add-schedule state="…"/>: the Background panel's Add schedule form (ui/add-schedule.tid)
made into a schedule tiddler. The form's values are fields of its state tiddler (chat, new-agent
(never `agent`: that field makes a tiddler a chat), kind, at, interval, cron, timezone, hours, message, max-runs, caption); they are checked by the
rules every schedule follows (schedules/schedule-form.ts), and a value that could not run is
said in plain words, in the user's language, in the state's `error` field: nothing is written.
Otherwise it creates the chat first when a new one was asked for (with the chosen agent), then
`$:/tiddlyagent/schedules/<chat>/<id>`, tagged $:/tags/AI/Schedule (the user's own: the
agent's tools never remove it), and the scheduler picks it up like any schedule tiddler.
\*/
import { ActionWidget } from './action-widget';
import { lib } from './library';
import { lingo } from './lingo';
import { CONFIG, configValue } from '../store/config';
import { isUnlistedChat } from '../store/listed-chats';
import { newChatFields } from '../store/new-chat';
import { AGENT_TAG } from '../store/tags';

/** Where the user's own schedules are made (not `$:/ai/schedules/`: those are the agent's). */
export const USER_SCHEDULE_PREFIX = '$:/tiddlyagent/schedules/';
const FORM_FIELDS = ['kind', 'at', 'interval', 'cron', 'timezone', 'hours', 'message', 'max-runs', 'caption'] as const;

class AddScheduleWidget extends ActionWidget {
  override invokeAction(): boolean {
    const wiki = this.wiki;
    const state = this.getAttribute('state', '$:/temp/tiddlyagent/add-schedule');
    const fields = (wiki.getTiddler(state)?.fields ?? {}) as Record<string, unknown>;
    const value = (name: string) => String(fields[name] ?? '').trim();
    const fail = (text: string): true => {
      wiki.addTiddler(new $tw.Tiddler(wiki.getTiddler(state) ?? { title: state }, { error: text }));
      return true;
    };
    const words = (key: string, values: Record<string, string> = {}) =>
      Object.entries(values).reduce((text, [name, v]) => text.split(`$${name}$`).join(v), lingo(wiki, key));
    let chat = value('chat');
    let agent = '';
    if (chat) {
      const chatFields = wiki.getTiddler(chat)?.fields;
      if (chatFields?.agent === undefined || isUnlistedChat(chatFields)) return fail(words('Schedule/Error/chat'));
    } else {
      agent = value('new-agent') || configValue(wiki, CONFIG.defaultAgent);
      if (!wiki.getTiddler(agent)?.hasTag(AGENT_TAG)) return fail(words('Schedule/Error/agent'));
      chat = wiki.generateNewTitle(lingo(wiki, 'NewChat/BaseTitle') || 'Chat', {});
    }
    const L = lib();
    const now = Date.now();
    const form = Object.fromEntries(FORM_FIELDS.map((name) => [name === 'max-runs' ? 'maxRuns' : name, value(name)]));
    const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!form.timezone) form.timezone = localZone;
    let schedule: Record<string, string>;
    try {
      schedule = L.scheduleFormFields(`${USER_SCHEDULE_PREFIX}${chat}/${now.toString(36)}`, chat, form, now, localZone);
    } catch (e) {
      if (!(e instanceof L.ScheduleError)) throw e;
      const known = e.reason !== 'other' && !!lingo(wiki, `Schedule/Error/${e.reason}`);
      return fail(known ? words(`Schedule/Error/${e.reason}`, e.values) : words('Schedule/Error/other', { detail: e.message }));
    }
    if (agent) wiki.addTiddler(newChatFields(chat, agent, { ...wiki.getCreationFields(), ...wiki.getModificationFields() }));
    wiki.addTiddler(new $tw.Tiddler(wiki.getCreationFields(), schedule, wiki.getModificationFields()));
    // The form closes and says what it made.
    wiki.addTiddler({ title: state, added: schedule.title, 'added-chat': chat });
    return true;
  }
}

export { AddScheduleWidget as 'action-ai-add-schedule' };

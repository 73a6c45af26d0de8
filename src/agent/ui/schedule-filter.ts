/*\
Filter operator `aischedule`, for the background panel: what a schedule, heartbeat or chat
says about itself, in words. The operand picks what:
- `problem`: why a schedule or trigger tiddler (or, for an agent definition, its heartbeat) cannot run;
  nothing when it can;
- `timing`: "every 5 min", "cron 0 9 * * 1-5 (Europe/Berlin)", "once at …", in the UI's language;
- `next`: a schedule's next run, a chat's next heartbeat, or a trigger's pending run, in this browser's local time;
- `until`: for a call waiting for the user, when it stops waiting (a turn no user started ends,
  runner/services/turn-unattended.ts; a confirmation is denied), in local time; nothing when it
  waits for as long as it takes;
- `cap`: for a schedule, a trigger, a chat or an agent definition, a line when the agent's
  spending cap is reached (store/spend.ts: its unattended runs are paused); nothing when not.
The library is loaded only when the filter runs (the panel is shown).
\*/
import { describeEach, type Source } from './fields-filter';
import { lib } from './library';
import { languageCode, lingo } from './lingo';

export function aischedule(
  source: Source,
  operator: { operand: string },
  options: {
    wiki: { getTiddler(title: string): { fields: Record<string, unknown> } | undefined; getTiddlerText(title: string, fallback?: string): string | undefined };
  },
): string[] {
  const L = lib();
  const port = L.createTiddlyWikiPort(options.wiki as never);
  const book = new L.ScheduleBook(port);
  // Dates in the wiki's language (zh-Hans reads 周一 … ); the filter runs again on every refresh.
  const locale = languageCode(options.wiki);
  const words: Words = (key, values = {}) =>
    Object.entries(values).reduce((text, [name, value]) => text.replace(`$${name}$`, () => value), lingo(options.wiki, key));
  return describeEach(source, port, (fields, title) => {
    switch (operator.operand) {
      case 'problem':
        if (L.isTriggerTiddler(fields)) return L.triggerEntry(port, title).problem ?? '';
        return L.isScheduleTiddler(fields) ? book.problem(title) : L.heartbeatProblem(port, title);
      case 'timing':
        return timing(fields, words, locale);
      case 'next': {
        const iso = L.isTriggerTiddler(fields)
          ? fields['trigger-due']
          : L.isScheduleTiddler(fields)
            ? fields['schedule-next-run']
            : fields[L.CHAT_HEARTBEAT_NEXT];
        return iso ? localTime(Date.parse(iso), locale) : '';
      }
      case 'until': {
        // A waiting call: when it stops waiting (a turn no user started ends; a confirmation is denied).
        const at = Math.min(Number(fields['unattended-expires'] ?? Infinity), fields.approval ? Infinity : Number(fields['approval-expires'] ?? Infinity));
        return Number.isFinite(at) ? localTime(at, locale) : '';
      }
      case 'cap': {
        const agent = fields['agent-chat']
          ? port.getFields(fields['agent-chat'])?.agent
          : (fields.agent ?? (/(^|\s|\[\[)\$:\/tags\/AI\/Agent(\]\]|\s|$)/.test(fields.tags ?? '') ? title : undefined));
        return agent && L.spendCapReached(new L.ChatStore(port), port, agent, Date.now()) ? words('Background/AtCap') : '';
      }
      default:
        return '';
    }
  });
}

/** The words of the UI's language (ui/lingo.ts), each `$name$` filled in. */
type Words = (key: string, values?: Record<string, string>) => string;

function timing(fields: Record<string, string>, words: Words, locale: string): string {
  const seconds = (s: string | undefined) => {
    const n = Number(s);
    if (!s || !Number.isFinite(n)) return '?';
    return n % 3600 === 0
      ? words('Schedule/Hours', { n: String(n / 3600) })
      : n % 60 === 0
        ? words('Schedule/Minutes', { n: String(n / 60) })
        : words('Schedule/Seconds', { n: String(n) });
  };
  const only = (hours: string | undefined) => (hours ? words('Schedule/Only', { hours }) : '');
  const hours = only(fields['schedule-active-hours']);
  const zone = fields['schedule-timezone'] ? ` (${fields['schedule-timezone']})` : '';
  const max = fields['schedule-max-runs'] ? words('Schedule/MaxRuns', { count: fields['schedule-max-runs'] }) : '';
  switch (fields['schedule-kind']) {
    case 'at':
      return `${words('Schedule/Once', { time: fields['schedule-at'] ? localTime(Date.parse(fields['schedule-at']), locale) : '?' })}${fields['schedule-interval'] ? words('Schedule/Then', { every: seconds(fields['schedule-interval']) }) : ''}${hours}${max}`;
    case 'interval':
      return `${words('Schedule/Every', { every: seconds(fields['schedule-interval']) })}${hours}${max}`;
    case 'cron':
      return `${words('Schedule/Cron', { cron: fields['schedule-cron'] ?? '?' })}${zone}${hours}${max}`;
    default:
      if (fields['agent-heartbeat-interval'])
        return `${words('Schedule/Every', { every: seconds(fields['agent-heartbeat-interval']) })}${only(fields['agent-heartbeat-active-hours'])}`;
      return '';
  }
}

function localTime(ms: number, locale: string): string {
  if (!Number.isFinite(ms)) return '';
  return new Date(ms).toLocaleString(locale, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

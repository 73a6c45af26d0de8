/*\
Filter operator `aischedule`, for the background panel: what a schedule, heartbeat or chat
says about itself, in words. The operand picks what:
- `problem`: why a schedule tiddler (or, for an agent definition, its heartbeat) cannot run;
  nothing when it can;
- `timing`: "every 5 min", "cron 0 9 * * 1-5 (Europe/Berlin)", "once at …";
- `next`: a schedule's next run, or a chat's next heartbeat, in this browser's local time.
The library is loaded only when the filter runs (the panel is shown).
\*/
import { lib } from './library';

type Source = (iterator: (tiddler: unknown, title: string) => void) => void;

export function aischedule(source: Source, operator: { operand: string }, options: { wiki: { getTiddler(title: string): { fields: Record<string, unknown> } | undefined } }): string[] {
  const L = lib();
  const port = L.createTiddlyWikiPort(options.wiki as never);
  const book = new L.ScheduleBook(port);
  const out: string[] = [];
  source((_tiddler, title) => {
    const fields = port.getFields(title);
    if (!fields) return;
    let value = '';
    switch (operator.operand) {
      case 'problem':
        value = L.isScheduleTiddler(fields) ? book.problem(title) : L.heartbeatProblem(port, title);
        break;
      case 'timing':
        value = timing(fields);
        break;
      case 'next': {
        const iso = L.isScheduleTiddler(fields) ? fields['schedule-next-run'] : fields[L.CHAT_HEARTBEAT_NEXT];
        value = iso ? localTime(Date.parse(iso)) : '';
        break;
      }
    }
    if (value) out.push(value);
  });
  return out;
}

function timing(fields: Record<string, string>): string {
  const seconds = (s: string | undefined) => {
    const n = Number(s);
    if (!s || !Number.isFinite(n)) return '?';
    return n % 3600 === 0 ? `${n / 3600} h` : n % 60 === 0 ? `${n / 60} min` : `${n} s`;
  };
  const hours = fields['schedule-active-hours'] ? `, only ${fields['schedule-active-hours']}` : '';
  const zone = fields['schedule-timezone'] ? ` (${fields['schedule-timezone']})` : '';
  const max = fields['schedule-max-runs'] ? `, at most ${fields['schedule-max-runs']} runs` : '';
  switch (fields['schedule-kind']) {
    case 'at':
      return `once at ${fields['schedule-at'] ? localTime(Date.parse(fields['schedule-at'])) : '?'}${fields['schedule-interval'] ? `, then every ${seconds(fields['schedule-interval'])}` : ''}${hours}${max}`;
    case 'interval':
      return `every ${seconds(fields['schedule-interval'])}${hours}${max}`;
    case 'cron':
      return `cron ${fields['schedule-cron'] ?? '?'}${zone}${hours}${max}`;
    default:
      if (fields['agent-heartbeat-interval']) return `every ${seconds(fields['agent-heartbeat-interval'])}${fields['agent-heartbeat-active-hours'] ? `, only ${fields['agent-heartbeat-active-hours']}` : ''}`;
      return '';
  }
}

function localTime(ms: number): string {
  if (!Number.isFinite(ms)) return '';
  return new Date(ms).toLocaleString(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

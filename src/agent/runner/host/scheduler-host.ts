/*\
Where the scheduler runs. The server edition starts one over the server's runner; a
browser-only wiki starts one in the page, over the page's runner, while the page is open
(runner/startup/scheduler-startup.ts). A page served by the server edition runs none: the server does.
\*/
import { Scheduler, type SchedulerHost } from '../../schedules/scheduler';
import type { WikiPort } from '../../store/wiki-port';
import type { LocalRunner } from '../local-runner';

export interface RunningScheduler {
  scheduler: Scheduler;
  stop(): void;
}

/** Start a scheduler that wakes chats through `runner`, looking again whenever the wiki changes. */
/** TiddlyWiki's change event: the changed titles as keys. */
type ChangeListener = (changes: unknown) => void;

export function startScheduler(
  runner: LocalRunner,
  wiki: WikiPort,
  events: { addEventListener(type: 'change', fn: ChangeListener): void; removeEventListener(type: 'change', fn: ChangeListener): void },
  options: Pick<SchedulerHost, 'clock' | 'persist'> = {},
): RunningScheduler {
  const scheduler = new Scheduler({ wiki, isFree: (chat) => runner.isFree(chat), wake: (chat, text, source) => runner.wake(chat, text, source), ...options });
  const changed: ChangeListener = (changes) => scheduler.changed(Object.keys(changes as Record<string, unknown>));
  events.addEventListener('change', changed);
  scheduler.start();
  return {
    scheduler,
    stop() {
      events.removeEventListener('change', changed);
      scheduler.stop();
    },
  };
}

/*\
Where the scheduler (and the trigger watch, schedules/trigger-watch.ts) runs. The server edition starts one over the server's runner; a
browser-only wiki starts one in the page, over the page's runner, while the page is open
(runner/startup/scheduler-startup.ts). A page served by the server edition runs none: the server does.
\*/
import { Scheduler, type SchedulerHost } from '../../schedules/scheduler';
import { TriggerWatch } from '../../schedules/trigger-watch';
import type { WikiPort } from '../../store/wiki-port';
import { isHiddenFromAgent } from '../../tools/visibility';
import type { LocalRunner } from '../local-runner';

export interface RunningScheduler {
  scheduler: Scheduler;
  triggers: TriggerWatch;
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
  const host: SchedulerHost = {
    wiki,
    isFree: (chat) => runner.isFree(chat),
    wake: (chat, text, source) => runner.wake(chat, text, source),
    // Every agent sees the same wiki (the agent view's rule, tools/visibility.ts): a trigger never names what it hides.
    visible: (_agent, title) => !isHiddenFromAgent(title, wiki.getFields(title)),
    ...options,
  };
  const scheduler = new Scheduler(host);
  const triggers = new TriggerWatch(host);
  const changed: ChangeListener = (changes) => {
    const titles = Object.keys(changes as Record<string, unknown>);
    scheduler.changed(titles);
    triggers.changed(titles);
  };
  events.addEventListener('change', changed);
  // A chat's last write (its status) can reach the scheduler before its operation has finished, while
  // it is not free yet: the end of the operation is what makes it free, so a waiting run looks again then.
  const idle = (chat: string) => {
    scheduler.changed([chat]);
    triggers.changed([chat]);
  };
  runner.idle.add(idle);
  scheduler.start();
  triggers.start();
  return {
    scheduler,
    triggers,
    stop() {
      events.removeEventListener('change', changed);
      runner.idle.delete(idle);
      scheduler.stop();
      triggers.stop();
    },
  };
}

/*\
How a browser-only wiki starts its background work (the scheduler, the semantic indexer): not in
a page the server edition serves (the server does it), not before the wiki wants it (a change
that brings what it needs starts it then, so the library is not loaded for nothing), and in
one tab of the wiki only (a Web Lock per address, held until that tab closes; then the next
tab of this wiki takes over).
\*/
import { servedByServerEdition } from '../server-edition';

interface LockManager {
  request(name: string, callback: () => Promise<void>): Promise<void>;
}

/** Runs `run` under the lock `lock` once `wanted()`, or once a change `brings` it. */
export function startInOneTab(lock: string, wanted: () => boolean, brings: (changes: Record<string, unknown>) => boolean, run: () => void): void {
  if (servedByServerEdition()) return;
  const start = () => {
    $tw.wiki.removeEventListener('change', onChange);
    const locks = (navigator as { locks?: LockManager }).locks;
    if (!locks) return run();
    void locks.request(`${lock} ${location.origin}${location.pathname}`, () => new Promise<void>(() => run()));
  };
  const onChange = (changes: unknown) => {
    if (brings(changes as Record<string, unknown>)) start();
  };
  if (wanted()) start();
  else $tw.wiki.addEventListener('change', onChange);
}

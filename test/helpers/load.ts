// Many chats streaming at once on one server edition (issue 14 item 6): one push-channel client
// per chat and every send at once; each client must get exactly its own chat's deltas, whose
// concatenation is the reply tiddler the server saved, and that reply answers its own chat's
// message (it quotes it). Used by the quick test (test/integration/server-load.test.ts) and the
// soak variant (test/soak/load.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { post, watch, type SseClient, type TwServer } from './server';

export interface LoadRound {
  chats: number;
  accepted: number;
  complete: number;
  inOrder: number;
  crossTalk: number;
  seconds: number;
  /** The server's resident memory when the round ended (MB). */
  rssAfter: number;
  rssPeak: number;
}

export const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** Chat tiddler files for `count` chats of the demo agent, written before the server starts. */
export function writeChats(dir: string, count: number, prefix = 'Load chat'): string[] {
  const chats = Array.from({ length: count }, (_, i) => `${prefix} ${i}`);
  for (const chat of chats)
    fs.writeFileSync(path.join(dir, 'tiddlers', `${chat}.tid`), `title: ${chat}\nagent: $:/demo/agents/offline-demo\nagent-status: idle\n\n`);
  return chats;
}

export async function loadRound(server: TwServer, chats: string[], round: number, timeoutMs = 120_000): Promise<LoadRound> {
  const pid = server.child.pid!;
  const clients: SseClient[] = await Promise.all(chats.map((chat) => watch(server.url, [chat])));
  const marks = clients.map((c) => c.events.length);
  let rssPeak = rssMb(pid);
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(pid))), 50);
  const started = performance.now();
  const token = (i: number) => `c${i}r${round}x`;
  const answers = await Promise.all(chats.map((chat, i) => post(server.url, 'send', { chat, text: `${`${token(i)} `.repeat(12)}end` })));
  try {
    await Promise.all(
      clients.map((c, i) =>
        c.waitFor(
          `${chats[i]} completed`,
          (e) => e.event === 'agent' && e.data.chat === chats[i] && e.data.type === 'status' && e.data.status === 'completed',
          { from: marks[i], ms: timeoutMs },
        ),
      ),
    );
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  let complete = 0;
  let inOrder = 0;
  let crossTalk = 0;
  for (const [i, c] of clients.entries()) {
    const since = c.events.slice(marks[i]);
    const reply = since.filter((e) => e.event === 'tiddler' && e.data['agent-chat'] === chats[i] && e.data.role === 'assistant').at(-1)?.data.text as
      | string
      | undefined;
    if (reply) complete++;
    if (reply && c.deltas(chats[i]!, marks[i]).join('') === reply) inOrder++;
    const foreign = since.some((e) => e.event === 'agent' && e.data.chat !== chats[i]);
    const others = (reply ?? '').match(/c\d+r\d+x/g)?.filter((t) => t !== token(i)) ?? [];
    if (foreign || !reply?.includes(token(i)) || others.length) crossTalk++;
    c.close();
  }
  return {
    chats: chats.length,
    accepted: answers.filter((a) => a.status === 202).length,
    complete,
    inOrder,
    crossTalk,
    seconds,
    rssAfter: rssMb(pid),
    rssPeak,
  };
}

export function formatRound(r: LoadRound, round: number): string {
  return `round ${round}: ${r.chats} chats, accepted ${r.accepted}, complete ${r.complete}, in order ${r.inOrder}, cross-talk ${r.crossTalk}, ${r.seconds.toFixed(2)} s, RSS peak ${r.rssPeak.toFixed(0)} MB, after ${r.rssAfter.toFixed(0)} MB`;
}

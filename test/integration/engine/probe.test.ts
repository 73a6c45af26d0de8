import { agentLib, bootWiki } from '../../helpers/tw';
import * as z from 'zod/mini';
test('probe', async () => {
  const $tw = await bootWiki([
    { title: 'P', api: 'openai-chat', 'base-url': 'http://127.0.0.1:9/v1', 'default-model': 'm' },
    { title: 'A', 'agent-provider': 'P', 'agent-tools': 'a', text: 'sys' },
    { title: 'C', agent: 'A', 'agent-status': 'idle' },
  ]);
  const lib = agentLib($tw); lib.ensureWebGlobals();
  const t = lib.defineTool({ name: 'a', description: 'd', parameters: z.object({ x: z.string() }), access: 'read', execute: () => ({ content: 'x' }) });
  const runner = new lib.LocalRunner({ wiki: lib.createTiddlyWikiPort($tw.wiki), fetch: null as any, getApiKey: () => undefined, keyHint: '', tools: new Map([['a', t]]) });
  const reqs: any[] = [];
  let n = 0;
  (runner as any).createModel = () => ({ api: 'x', async *stream(req: any) { reqs.push(req); if (n++ === 0) { yield { type: 'tool-call', index: 0, id: 'c1', name: 'a', args: { x: 5 } }; yield { type: 'finish', reason: 'tool-calls' }; } else { yield { type: 'text-delta', text: 'hi' }; yield { type: 'finish', reason: 'stop' }; } } });
  const r = await runner.send('C', 'hello');
  console.log(r, JSON.stringify(reqs, null, 1));
});

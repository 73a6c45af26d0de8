// The single-file plugin (dist/agent.json) in the TiddlyWiki versions we support: the oldest,
// 5.3.8 (the devDependency "tiddlywiki-5.3"), and the current 5.4.x. Each boots TiddlyWiki's own
// empty edition with the plugin, renders a chat, and runs turns against the mock LLM: a reply,
// a write that waits for approval and lands when allowed, and Roll back. The browser side of
// 5.3 is test/e2e/tiddlywiki-5.3.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/tw';

const { startMockLlm, defaultReply } = require('../../scripts/mock-llm.cjs');

const VERSIONS = [
  { name: 'tiddlywiki-5.3', version: /^5\.3\./ },
  { name: 'tiddlywiki', version: /^5\.4\./ },
];

let mock: any;
beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
});
afterAll(async () => {
  await mock?.close();
});

describe.each(VERSIONS)('in $name', ({ name, version }) => {
  let $tw: any;
  beforeAll(async () => {
    $tw = require(name).TiddlyWiki();
    $tw.boot.argv = [path.join(ROOT, 'node_modules', name, 'editions', 'empty')];
    $tw.preloadTiddlerArray([
      JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', 'agent.json'), 'utf8')),
      { title: 'Mock', tags: '$:/tags/AI/Provider', api: 'openai-chat', 'base-url': mock.url, 'default-model': 'mock-model' },
      { title: 'Helper', tags: '$:/tags/AI/Agent', 'agent-provider': 'Mock', 'agent-tools': 'wiki-search wiki-read wiki-create wiki-edit' },
      { title: 'Old chat', agent: 'Helper', 'agent-status': 'idle', text: '' },
    ]);
    await new Promise<void>((resolve) => $tw.boot.boot(resolve));
  });

  const lib = () => $tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '');
  const messages = () =>
    ($tw.wiki.filterTiddlers('[field:agent-chat[Old chat]]') as string[])
      .map((t) => $tw.wiki.getTiddler(t).getFieldStrings() as Record<string, string>)
      .sort((a, b) => Number(a['agent-seq']) - Number(b['agent-seq']));

  test('boots with the plugin and renders a chat', () => {
    expect($tw.version).toMatch(version);
    expect($tw.wiki.getTiddler('$:/plugins/tiddlyagent/agent/agents/wiki-assistant').fields.caption).toBe('Wiki Assistant');
    const html: string = $tw.wiki.renderTiddler('text/html', '$:/core/ui/ViewTemplate/body', { variables: { currentTiddler: 'Old chat' } });
    expect(html).toContain('class="tc-ai-chat"');
    expect(html).toContain('data-chat="Old chat"');
  });

  test('a reply, then a write that waits for approval, lands when allowed, and is rolled back', async () => {
    const runner = lib().getLocalRunner();
    expect(await runner.submit({ kind: 'send', chat: 'Old chat', text: 'Hello old wiki' })).toMatchObject({ status: 'completed' });
    expect(messages().at(-1)).toMatchObject({ role: 'assistant', text: defaultReply('Hello old wiki') });

    mock.queue([{ toolCalls: [{ name: 'wiki-create', arguments: { title: 'Written note', text: 'By the agent' } }] }]);
    expect(await runner.submit({ kind: 'send', chat: 'Old chat', text: 'Write a note' })).toEqual({ status: 'input-required' });
    const user = messages()
      .filter((m) => m.role === 'user')
      .at(-1)!.title!;
    const pending = messages().find((m) => m['tool-status'] === 'pending')!;
    expect($tw.wiki.tiddlerExists('Written note')).toBe(false);
    await runner.submit({ kind: 'decide', chat: 'Old chat', message: pending.title, choice: 'once' });
    await waitFor(() => $tw.wiki.getTiddler('Old chat').fields['agent-status'] === 'completed');
    expect($tw.wiki.getTiddlerText('Written note')).toBe('By the agent');

    const rolled = await runner.submit({ kind: 'rollback', chat: 'Old chat', message: user });
    expect(rolled.conflicts).toEqual([]);
    expect($tw.wiki.tiddlerExists('Written note')).toBe(false);
  });
});

/** Poll a condition (the turn goes on after `decide` returns) without a fixed sleep. */
async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

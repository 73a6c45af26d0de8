// Chats made by an earlier version open and go on in this one. test/fixtures/data-format/
// holds, per data format, the tiddlers a real turn of that version wrote (make-fixture.cjs):
// an agent, a provider, a chat with a turn that wrote through a journal, a turn that read, and
// a call waiting for approval, and a schedule. This boots a real TiddlyWiki with each, as a
// wiki saved by that version would load (the start-up migration runs at boot), and continues.
import fs from 'node:fs';
import path from 'node:path';
import { DATA_FORMAT, FORMAT_TIDDLER } from '../../src/agent/store/data-format';
import { agentLib, bootWiki, type TW } from '../helpers/tw';

const { startMockLlm, defaultReply } = require('../../scripts/mock-llm.cjs');

jest.setTimeout(30_000);

const CHAT = 'Fixture chat';
let mock: any;

beforeAll(async () => {
  mock = await startMockLlm({ delayMs: 1 });
});
afterAll(async () => mock?.close());

function fixture(format: number): Record<string, string>[] {
  const text = fs.readFileSync(path.join(__dirname, `../fixtures/data-format/format-${format}.json`), 'utf8');
  return (JSON.parse(text) as Record<string, string>[]).map((t) => (t['base-url'] === 'MOCK_URL' ? { ...t, 'base-url': mock.url } : t));
}

const messages = ($tw: TW) =>
  ($tw.wiki.filterTiddlers(`[field:agent-chat[${CHAT}]]`) as string[])
    .map((title) => $tw.wiki.getTiddler(title).getFieldStrings() as Record<string, string>)
    .sort((a, b) => Number(a['agent-seq']) - Number(b['agent-seq']));

describe.each(Array.from({ length: DATA_FORMAT }, (_, i) => i + 1))('a wiki saved in data format %i', (format) => {
  let $tw: TW;
  beforeAll(async () => {
    $tw = await bootWiki(fixture(format));
  });

  test('opens: its chat shows every message in order, its call still waits', () => {
    const shown = messages($tw);
    expect(shown.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool']);
    const parser = $tw.wiki.parseText('text/vnd.tiddlywiki', `<$ai-chat chat="${CHAT}"/>`);
    const widget = $tw.wiki.makeWidget(parser, { document: $tw.fakeDocument });
    const container = $tw.fakeDocument.createElement('div');
    widget.render(container, null);
    expect(container.textContent).toContain('Made by the fixture turn');
    expect(container.textContent).toContain('Asks to delete Fixture note');
    expect(container.textContent).toContain('Allow once');
    // Nothing to migrate: the wiki is not changed on load.
    if (format === DATA_FORMAT) expect($tw.wiki.getTiddler(FORMAT_TIDDLER)).toBeUndefined();
  });

  test('goes on: the waiting call is decided, a new message gets a reply with the old history, the old turn rolls back', async () => {
    const runner = agentLib($tw).getLocalRunner();
    const pending = messages($tw).find((m) => m['tool-status'] === 'pending')!;
    const decided = await runner.submit({ kind: 'decide', chat: CHAT, message: pending.title!, choice: 'once' });
    expect(decided.status).toBe('completed');
    expect($tw.wiki.tiddlerExists('Fixture note')).toBe(false);

    const asked = mock.requests.length;
    const sent = await runner.submit({ kind: 'send', chat: CHAT, text: 'Still there after the update?' });
    expect(sent.status).toBe('completed');
    expect(messages($tw).at(-1)).toMatchObject({ role: 'assistant', text: defaultReply('Still there after the update?') });
    // The old turns went to the model as history.
    const body = JSON.stringify(mock.requests[asked].body);
    expect(body).toContain('Fixture created');

    const first = messages($tw)[0]!;
    const rolled = await runner.submit({ kind: 'rollback', chat: CHAT, message: first.title!, force: true });
    expect(rolled.restored).toContain('Fixture created');
    expect($tw.wiki.tiddlerExists('Fixture created')).toBe(false);
    runner.dispose();
  });
});

test('a wiki saved by a newer version is left as it is, with a word in the log', async () => {
  const logged: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logged.push(args.join(' ')));
  try {
    const chat = fixture(DATA_FORMAT).find((t) => t.title === CHAT)!;
    const $tw = await bootWiki([{ title: FORMAT_TIDDLER, text: String(DATA_FORMAT + 1) }, chat]);
    expect($tw.wiki.getTiddler(FORMAT_TIDDLER).fields.text).toBe(String(DATA_FORMAT + 1));
    expect($tw.wiki.getTiddler(CHAT).getFieldStrings()).toEqual(chat);
  } finally {
    log.mockRestore();
  }
  expect(logged.join('\n')).toContain(`saved in data format ${DATA_FORMAT + 1}, newer than this plugin's`);
});

// The data format's migration steps (store/data-format.ts): run in order from the wiki's
// recorded format to the plugin's, recorded once there, never on a wiki of a newer format.
import fs from 'node:fs';
import path from 'node:path';
import { DATA_FORMAT, FORMAT_TIDDLER, type FormatWiki, type Migration, migrateData, wikiFormat } from '../../src/agent/store/data-format';

function memoryWiki(tiddlers: Record<string, string>[]): FormatWiki & { tiddlers: Map<string, Record<string, string>> } {
  const map = new Map(tiddlers.map((t) => [t.title!, { ...t }]));
  return {
    tiddlers: map,
    getFields: (title) => map.get(title),
    putTiddler: (fields) => void map.set(fields.title!, { ...fields }),
    filter: (expression) => (expression === '[has[agent]]' ? [...map.values()].filter((t) => t.agent).map((t) => t.title!) : []),
  };
}

// Two made-up later formats: 2 renames a message field, 3 fills a chat field.
const steps: Migration[] = [
  {
    to: 3,
    describe: 'chats get agent-hidden',
    apply: (wiki) => {
      for (const chat of wiki.filter('[has[agent]]')) wiki.putTiddler({ ...wiki.getFields(chat)!, 'agent-hidden': 'no' });
    },
  },
  {
    to: 2,
    describe: 'chats: old-status → agent-status',
    apply: (wiki) => {
      for (const chat of wiki.filter('[has[agent]]')) {
        const { 'old-status': old, ...rest } = wiki.getFields(chat)!;
        if (old !== undefined) wiki.putTiddler({ ...rest, 'agent-status': old });
      }
    },
  },
];

test('a wiki that never recorded a format is format 1; a garbled record counts as 1', () => {
  expect(wikiFormat(memoryWiki([]))).toBe(1);
  expect(wikiFormat(memoryWiki([{ title: FORMAT_TIDDLER, text: 'banana' }]))).toBe(1);
  expect(wikiFormat(memoryWiki([{ title: FORMAT_TIDDLER, text: '2' }]))).toBe(2);
});

test('the steps run in order from the recorded format to the current one, which is then recorded', () => {
  const wiki = memoryWiki([{ title: 'Old chat', agent: 'A', 'old-status': 'completed' }]);
  const result = migrateData(wiki, steps, 3);
  expect(result).toEqual({ from: 1, to: 3, applied: ['2: chats: old-status → agent-status', '3: chats get agent-hidden'], newer: false });
  expect(wiki.tiddlers.get('Old chat')).toEqual({ title: 'Old chat', agent: 'A', 'agent-status': 'completed', 'agent-hidden': 'no' });
  expect(wiki.tiddlers.get(FORMAT_TIDDLER)?.text).toBe('3');
  // Loaded again: nothing left to do.
  expect(migrateData(wiki, steps, 3).applied).toEqual([]);
});

test('only the steps after the recorded format run', () => {
  const wiki = memoryWiki([
    { title: FORMAT_TIDDLER, text: '2' },
    { title: 'Chat', agent: 'A', 'old-status': 'kept as is' },
  ]);
  expect(migrateData(wiki, steps, 3).applied).toEqual(['3: chats get agent-hidden']);
  expect(wiki.tiddlers.get('Chat')!['old-status']).toBe('kept as is');
});

test('a wiki of a newer format than the plugin is left untouched', () => {
  const wiki = memoryWiki([
    { title: FORMAT_TIDDLER, text: '4' },
    { title: 'Chat', agent: 'A', 'old-status': 'x' },
  ]);
  const before = JSON.stringify([...wiki.tiddlers]);
  expect(migrateData(wiki, steps, 3)).toMatchObject({ from: 4, newer: true, applied: [] });
  expect(JSON.stringify([...wiki.tiddlers])).toBe(before);
});

test("a wiki of today's format gets no new tiddler on load (a single-file wiki would open with unsaved changes)", () => {
  const wiki = memoryWiki([{ title: 'Chat', agent: 'A' }]);
  migrateData(wiki);
  expect(wiki.tiddlers.has(FORMAT_TIDDLER)).toBe(false);
});

test("the plugin's format is in plugin.info, and a fixture of it is committed", () => {
  const info = JSON.parse(fs.readFileSync(path.join(__dirname, '../../src/agent/plugin.info'), 'utf8'));
  expect(info['tiddlyagent-data-format']).toBe(String(DATA_FORMAT));
  for (let format = 1; format <= DATA_FORMAT; format++) expect(fs.existsSync(path.join(__dirname, `../fixtures/data-format/format-${format}.json`))).toBe(true);
});

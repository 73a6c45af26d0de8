// The TiddlyAgent settings ($:/config/tiddlyagent/…) are read trimmed, in one place: configValue
// in TypeScript (store/config.ts), the global function ai.config in wikitext. A shipped default
// or a hand-edited value with a newline around it (the default agent once ended in one, so "New
// chats use" showed blank) reads the same as without.
import fs from 'node:fs';
import path from 'node:path';
import { CONFIG, configValue } from '../../../src/agent/store/config';

const SRC = path.resolve(__dirname, '../../../src');

function files(dir: string, ext: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name), ext) : e.name.endsWith(ext) ? [path.join(dir, e.name)] : []));
}
const rel = (file: string) => path.relative(SRC, file);

test('a setting reads trimmed from a WikiPort and from a TiddlyWiki wiki; missing or blank reads as empty', () => {
  const text: Record<string, string> = { [CONFIG.defaultAgent]: '  $:/agents/mine\n', [CONFIG.autoTitle]: '\n' };
  expect(configValue({ getFields: (t: string) => (t in text ? { text: text[t] } : undefined) }, CONFIG.defaultAgent)).toBe('$:/agents/mine');
  expect(configValue({ getTiddlerText: (t: string) => text[t] }, CONFIG.defaultAgent)).toBe('$:/agents/mine');
  expect(configValue({ getTiddlerText: (t: string) => text[t] }, CONFIG.autoTitle)).toBe('');
  expect(configValue({ getFields: () => undefined }, CONFIG.semanticEnabled)).toBe('');
  expect(configValue({ getTiddlerText: () => null }, CONFIG.semanticEnabled)).toBe('');
});

test('the shipped settings carry no whitespace around their value', () => {
  for (const file of [...files(path.join(SRC, 'agent'), '.tid'), path.resolve(SRC, '../wiki/tiddlers/$__config_tiddlyagent_default-agent.tid')]) {
    const source = fs.readFileSync(file, 'utf8');
    if (!/^title: \$:\/config\/tiddlyagent\//m.test(source)) continue;
    const body = source.slice(source.indexOf('\n\n') + 2);
    expect({ file: rel(file), body }).toEqual({ file: rel(file), body: body.trim() });
  }
});

test('TypeScript names the settings only in store/config.ts and reads their text only through configValue', () => {
  const problems: string[] = [];
  for (const file of files(SRC, '.ts')) {
    const code = fs
      .readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    if (rel(file) !== path.join('agent', 'store', 'config.ts') && code.includes('$:/config/tiddlyagent/'))
      problems.push(`${rel(file)} spells a setting's title`);
    // A setting's constant handed to a raw text read.
    for (const m of code.matchAll(/(getTiddlerText\(\s*|getFields\(\s*)([\w.]+)(\)\??\.text)?/g)) {
      const name = m[2]!;
      const isSetting = /^CONFIG\.|_CONFIG$|^(SEMANTIC_PROFILE|SEMANTIC_ENABLED|WEB_ALLOW_HOSTS|IMPORT_TOOL_CEILING|ENABLED)$/.test(name);
      if (isSetting && (m[1]!.startsWith('getTiddlerText') || m[3])) problems.push(`${rel(file)}: ${m[0]}`);
    }
  }
  expect(problems).toEqual([]);
});

test("wikitext reads a setting's value only through ai.config", () => {
  const problems: string[] = [];
  for (const file of files(SRC, '.tid')) {
    const source = fs.readFileSync(file, 'utf8');
    // A text reference ({…} in a filter, {{…}} transcluded) or get[text] of a setting's title.
    for (const m of source.matchAll(/\{\{?\$:\/config\/tiddlyagent\/[^}]*\}|\[\[\$:\/config\/tiddlyagent\/[^\]]*\]\][^\]]*get\[text\]/g))
      problems.push(`${rel(file)}: ${m[0]}`);
  }
  expect(problems).toEqual([]);
});

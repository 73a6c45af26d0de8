// DESIGN 3: imports point downward only, and the engine, providers, tools and store never
// touch $tw, the DOM or Node APIs (they get a WikiPort, fetch and timers injected).
import fs from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(__dirname, '../../src/agent');
const LAYERS = ['store', 'schedules', 'search', 'tools', 'providers', 'engine', 'runner', 'ui'] as const;
const PURE = ['store', 'schedules', 'search', 'tools', 'providers', 'engine'];
const FORBIDDEN = [
  /\$tw\b/,
  /\bdocument\.[a-zA-Z]/,
  /\bwindow\.[a-zA-Z]/,
  /\brequire\(/,
  /from ['"]node:/,
  /from ['"](fs|path|http|https|child_process|vm)['"]/,
];
/** What each layer may import (DESIGN 3: ui > runner > engine > providers/tools > search/schedules > store). */
const ALLOWED: Record<string, string[]> = {
  store: ['store'],
  schedules: ['schedules', 'store'],
  search: ['search', 'store'],
  tools: ['tools', 'search', 'schedules', 'store'],
  providers: ['providers'],
  engine: ['engine', 'providers', 'tools', 'search', 'schedules', 'store'],
  runner: ['runner', 'engine', 'providers', 'tools', 'search', 'schedules', 'store'],
  ui: ['ui', 'runner', 'engine', 'tools', 'search', 'schedules', 'store'],
};

function files(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

for (const layer of LAYERS) {
  test(`${layer}/ imports only from the layers below it${PURE.includes(layer) ? ' and touches no $tw, DOM or Node API' : ''}`, () => {
    const problems: string[] = [];
    for (const file of files(path.join(SRC, layer))) {
      const source = fs.readFileSync(file, 'utf8');
      const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
      for (const m of code.matchAll(/from '(\.[^']+)'/g)) {
        const target = path.relative(SRC, path.resolve(path.dirname(file), m[1]!)).split(path.sep)[0]!;
        if (LAYERS.includes(target as (typeof LAYERS)[number]) && !ALLOWED[layer]!.includes(target))
          problems.push(`${path.relative(SRC, file)} imports ${m[1]}`);
      }
      if (PURE.includes(layer)) for (const re of FORBIDDEN) if (re.test(code)) problems.push(`${path.relative(SRC, file)} uses ${re}`);
    }
    expect(problems).toEqual([]);
  });
}

// Issue 25: no file in src/ over 400 lines, no function over 80. A long file or function is
// one that holds more than one concept; the failure names each offender (file:line and its
// length) so it is clear what to split. Functions are found with the TypeScript compiler API,
// so a function's span is its code (from its first token to its closing brace), not the
// comment above it.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const SRC = path.join(ROOT, 'src');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

function tsFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? tsFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

function lineCount(text: string): number {
  if (text === '') return 0;
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/** A readable name for a function: its own, or that of the variable or property it is assigned to. */
function functionName(node: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) return parent.name.getText();
  return '<anonymous>';
}

interface Offender {
  where: string;
  lines: number;
  what: string;
}

/** The functions of any kind (declarations, methods, arrows, expressions, constructors, accessors) in `text` longer than the limit. */
function longFunctions(text: string, rel: string): Offender[] {
  const source = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Offender[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const start = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_FUNCTION_LINES) found.push({ where: `${rel}:${start + 1}`, lines, what: `function ${functionName(fn)}` });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const files = tsFiles(SRC).map((file) => ({ file, rel: path.relative(ROOT, file).split(path.sep).join('/') }));

test('the walk finds the sources, and every kind of function when it is too long', () => {
  expect(files.length).toBeGreaterThan(50);
  expect(files.some((f) => f.rel === 'src/agent/engine/loop.ts')).toBe(true);
  const body = (n: number) => Array.from({ length: n - 2 }, () => '  void 0;').join('\n');
  const sample = [
    `function declared() {\n${body(81)}\n}`,
    `function justFits() {\n${body(80)}\n}`,
    `const arrow = () => {\n${body(81)}\n};`,
    `const expression = function () {\n${body(81)}\n};`,
    `class C {\n  constructor() {\n${body(81)}\n  }\n  method() {\n${body(81)}\n  }\n  get value() {\n${body(81)}\n  }\n}`,
  ].join('\n');
  expect(longFunctions(sample, 'sample.ts').map((o) => `${o.what} ${o.lines}`)).toEqual([
    'function declared 81',
    'function arrow 81',
    'function expression 81',
    'function constructor 81',
    'function method 81',
    'function value 81',
  ]);
});

test(`no file in src/ is over ${MAX_FILE_LINES} lines`, () => {
  const offenders = files
    .map(({ file, rel }) => ({ where: rel, lines: lineCount(fs.readFileSync(file, 'utf8')) }))
    .filter((o) => o.lines > MAX_FILE_LINES)
    .map((o) => `${o.where}: ${o.lines} lines`);
  expect(offenders).toEqual([]);
});

test(`no function in src/ is over ${MAX_FUNCTION_LINES} lines`, () => {
  const offenders = files.flatMap(({ file, rel }) => longFunctions(fs.readFileSync(file, 'utf8'), rel)).map((o) => `${o.where}: ${o.what}, ${o.lines} lines`);
  expect(offenders).toEqual([]);
});

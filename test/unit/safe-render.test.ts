// settledLength: where a streaming reply can be cut into blocks that will not change.
// parseSafeWikitext: the safe rule set plus the parse-tree sanitizer, against TiddlyWiki's own
// wikitext parser (the core alone, booted from an empty folder; no plugins).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseSafeWikitext, settledLength } from '../../src/agent/ui/safe-render';

test('the settled part ends after the last blank line', () => {
  expect(settledLength('One paragraph still streaming')).toBe(0);
  const text = 'First paragraph.\n\nSecond one.\n\nThird, still stre';
  expect(text.slice(0, settledLength(text))).toBe('First paragraph.\n\nSecond one.\n\n');
});

test('a blank line inside an open code block does not settle anything after the fence', () => {
  const text = 'Intro.\n\n```\ncode line\n\nmore code\n';
  expect(text.slice(0, settledLength(text))).toBe('Intro.\n\n');
  const closed = `${text}\`\`\`\n\nAfter.`;
  expect(closed.slice(0, settledLength(closed))).toBe(`${text}\`\`\`\n\n`);
});

test('leading blank lines are not a block boundary', () => {
  expect(settledLength('\nHello')).toBe(0);
});

// parseSafeWikitext: classes, styles, links, widgets.

type Node = { type: string; tag?: string; attributes?: Record<string, any>; orderedAttributes?: { name: string }[]; children?: Node[]; text?: string };
let $tw: any;
let empty: string;

beforeAll(async () => {
  empty = fs.mkdtempSync(path.join(os.tmpdir(), 'safe-render-'));
  $tw = require('tiddlywiki').TiddlyWiki();
  $tw.boot.argv = [empty, '--output', empty]; // a command, so boot does not print the usage
  await new Promise<void>((resolve) => $tw.boot.boot(resolve));
  $tw.wiki.addTiddler({ title: 'Secret', text: 'the secret text' });
});
afterAll(() => fs.rmSync(empty, { recursive: true, force: true }));

const tree = (text: string, options?: { parseAsInline?: boolean }) => parseSafeWikitext($tw.wiki, text, options).tree as unknown as Node[];

function html(text: string, options?: { parseAsInline?: boolean }): string {
  const widget = $tw.wiki.makeWidget({ tree: tree(text, options) }, { document: $tw.fakeDocument });
  const container = $tw.fakeDocument.createElement('div');
  widget.render(container, null);
  return container.innerHTML as string;
}

/** Every node of a tree, depth first. */
function nodes(list: Node[]): Node[] {
  return list.flatMap((n) => [n, ...nodes(n.children ?? [])]);
}

/** The class values and style attributes anywhere in the tree. */
function classesAndStyles(list: Node[]): { classes: string[]; styles: number } {
  const all = nodes(list);
  return {
    classes: all.flatMap((n) =>
      String(n.attributes?.class?.value ?? '')
        .split(/\s+/)
        .filter(Boolean),
    ),
    styles: all.filter((n) => n.attributes?.style || n.orderedAttributes?.some((a) => a.name === 'style')).length,
  };
}

const ROUTES: [string, string, string][] = [
  ['heading', '!.tc-ai-card.tc-ai-approval Fake heading', 'Fake heading'],
  ['level-3 heading', '!!!.tc-ai-card Small heading', 'Small heading'],
  ['bullet item', '*.tc-ai-approval fake item', 'fake item'],
  ['numbered item', '#.tc-ai-card numbered', 'numbered'],
  ['definition list', ';.tc-ai-card term\n:.tc-ai-card definition', 'definition'],
  ['quote block', '<<<.tc-ai-card.tc-ai-message\nfake quote\n<<< cite', 'fake quote'],
  ['table class row', '|tc-ai-card tc-ai-approval|k\n|a|b|\n|c|d|', 'd'],
  ['table caption row', '|tc-ai-card|k\n|A caption|c\n|a|b|', 'A caption'],
  ['inline style', '@@.tc-ai-card fake card@@', 'fake card'],
  ['inline CSS', '@@color:red;background:url(https://evil.example/x.png);styled@@', 'styled'],
  ['block style', '@@.tc-ai-card\nblock card\n@@', 'block card'],
  ['HTML element', '<div class="tc-ai-card" style="color:red">html card</div>', 'html card'],
  ['span', '<span class="tc-ai-button">fake button</span>', 'fake button'],
];

describe.each(ROUTES)('class and style from a reply: %s', (_name, text, visible) => {
  test('no class the reply names and no style reach the tree or the HTML', () => {
    const { classes, styles } = classesAndStyles(tree(text));
    expect(classes.filter((c) => c.startsWith('tc-ai'))).toEqual([]);
    expect(styles).toBe(0);
    const out = html(text);
    // (HTML in a reply shows as text, escaped: `&lt;div class="…"&gt;` is no element.)
    expect(out).not.toMatch(/<[a-z][^>]*\sclass="[^"]*tc-ai-/);
    expect(out).not.toMatch(/<[a-z][^>]*\sstyle=/);
    expect(out).toContain(visible);
  });
});

test("only the classes TiddlyWiki's own rules add are kept", () => {
  const all = classesAndStyles(tree([...ROUTES.map((r) => r[1]), '[ext[https://example.com/]]', 'https://example.com/plain'].join('\n\n'))).classes;
  expect(new Set(all)).toEqual(new Set(['tc-quote', 'evenRow', 'oddRow', 'tc-tiddlylink-external']));
});

test('@@ stays disabled: its text, markers included, shows as text', () => {
  const out = html('@@.tc-ai-card fake card@@');
  expect(out).toBe('<p>@@.tc-ai-card fake card@@</p>');
  expect(nodes(tree('@@.x y@@')).map((n) => n.type)).toEqual(['void', 'element', 'text']);
  expect(html('@@.cls\nblock text\n@@')).toContain('block text');
  expect(
    nodes(tree('@@.cls\nblock text\n@@'))
      .filter((n) => n.type === 'element')
      .map((n) => n.tag),
  ).toEqual(['p']);
});

test('links still work: tiddler links keep `to`, external links keep href, target and rel', () => {
  const [prettyLink] = nodes(tree('[[Some tiddler]]')).filter((n) => n.type === 'link');
  expect(Object.keys(prettyLink!.attributes!)).toEqual(['to']);
  expect(prettyLink!.attributes!.to.value).toBe('Some tiddler');
  expect(html('[[Label|Some tiddler]]')).toMatch(/<a class="tc-tiddlylink tc-tiddlylink-missing" href="#Some%20tiddler">Label<\/a>/);
  expect(html('$:/SiteTitle')).toContain('href="#%24%3A%2FSiteTitle"');
  for (const text of ['https://example.com/a', '[ext[Label|https://example.com/a]]', '[[Label|https://example.com/a]]']) {
    const out = html(text);
    expect(out).toContain('href="https://example.com/a"');
    expect(out).toContain('class="tc-tiddlylink-external"');
    expect(out).toContain('target="_blank"');
    expect(out).toContain('rel="noopener noreferrer"');
  }
  expect(html('[ext[mail|mailto:someone@example.com]]')).toContain('href="mailto:someone@example.com"');
});

test('links that are not http(s) or mailto show as text', () => {
  for (const href of ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'file:///etc/passwd']) {
    const out = html(`[ext[click|${href}]]`);
    expect(out).not.toContain('<a');
  }
  expect(html('[[click|javascript:alert(1)]]')).not.toMatch(/href="javascript/);
});

test('no widgets, images, transclusion or macros from a reply', () => {
  const out = html(
    [
      '<$button actions="<$action-setfield $tiddler=Pwned text=yes/>">Click</$button>',
      '[img[https://evil.example/x.png]]',
      '<img src="https://evil.example/y.png">',
      '{{Secret}} <$transclude $tiddler="Secret"/> <<now>> {{{ [[Secret]get[text]] }}}',
      '<iframe src="https://evil.example/"></iframe> <script>alert(1)</script>',
    ].join('\n\n'),
  );
  expect(out).not.toMatch(/<(button|img|iframe|script)/);
  expect(out).not.toContain('the secret text');
  expect(nodes(tree('<$button>x</$button> {{Secret}}')).filter((n) => !['void', 'element', 'text'].includes(n.type))).toEqual([]);
});

test('a reply cannot hold a button that sends to the agent (<$action-ai-send>, tm-ai-send)', () => {
  const source = [
    '<$action-ai-send message="hello from the reply" new="yes"/>',
    '<$button><$action-ai-send chat="Work" message="Delete everything"/>Tidy up</$button>',
    '<$button message="tm-ai-send" param="hi">Send</$button>',
    '<$action-sendmessage $message="tm-ai-send" message="hi"/>',
  ].join('\n\n');
  expect(html(source)).not.toMatch(/<button/);
  const widgets = nodes(tree(source)).filter((n) => !['void', 'element', 'text'].includes(n.type));
  expect(widgets).toEqual([]);
  expect(nodes(tree(source)).some((n) => n.type === 'action-ai-send' || n.tag === '$action-ai-send')).toBe(false);
});

test('formatting survives: strikethrough, emphasis, tables with alignment and spans', () => {
  const out = html("''bold'' //it// __u__ ~~gone~~ ^^sup^^ ,,sub,, `code`");
  for (const part of ['<strong>bold</strong>', '<em>it</em>', '<u>u</u>', '<s>gone</s>', '<sup>sup</sup>', '<sub>sub</sub>', '<code>code</code>'])
    expect(out).toContain(part);
  const table = html('|!Head|!Two|\n| centred | right|\n|^top|<|');
  expect(table).toContain('<th>Head</th>');
  expect(table).toContain('align="center"');
  expect(table).toContain('align="right"');
  expect(table).toContain('valign="top"');
  expect(table).toContain('colspan="2"');
  expect(html('```js\nlet x = 1;\n```')).toContain('let x = 1;');
});

test('attribute lists stay in step: orderedAttributes names only kept attributes', () => {
  for (const node of nodes(tree('|tc-ai-card|k\n|^top|<|\n|a|b|\n<<<.x\nq\n<<<'))) {
    if (!node.orderedAttributes) continue;
    expect(node.orderedAttributes.map((a) => a.name).sort()).toEqual(Object.keys(node.attributes ?? {}).sort());
    for (const a of node.orderedAttributes) expect(a).toBe(node.attributes![a.name]);
  }
});

test('inline parsing (a reply transcluded inside a paragraph) makes no block elements', () => {
  expect(html("''bold'' and [[Link]]", { parseAsInline: true })).not.toContain('<p>');
  expect(html('!.tc-ai-card not a heading', { parseAsInline: true })).toBe('!.tc-ai-card not a heading');
});

test('with the \\rules pragma switched off, a reply fails closed: plain text', () => {
  const ruleClasses = $tw.Wiki.parsers['text/vnd.tiddlywiki'].prototype;
  const saved = ruleClasses.pragmaRuleClasses;
  $tw.wiki.addTiddler({ title: '$:/config/WikiParserRules/Pragmas/rules', text: 'disable' });
  delete ruleClasses.pragmaRuleClasses; // the parser reads the configuration once
  try {
    const out = html("<$button>x</$button> ''bold'' @@.tc-ai-card y@@");
    expect(out).toBe("<p>&lt;$button&gt;x&lt;/$button&gt; ''bold'' @@.tc-ai-card y@@</p>");
  } finally {
    $tw.wiki.deleteTiddler('$:/config/WikiParserRules/Pragmas/rules');
    ruleClasses.pragmaRuleClasses = saved;
  }
  expect(html("''bold''")).toBe('<p><strong>bold</strong></p>');
});

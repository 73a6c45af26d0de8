// The demo wiki's pages in Chinese (docs/architecture.md, "Languages and translations"): a tiddler "<title>/zh-Hans" with
// `translation-of: <title>` is what "<title>" shows, body and heading, while $:/language is
// zh-Hans. The welcome tiddler and the manual's chapters listed in TRANSLATED have one; each keeps the English one's links (to the English titles, so they work in both
// languages), code and field names, and the same screenshots.
import { bootWiki, type TW } from '../helpers/tw';

let $tw: TW;
beforeAll(async () => {
  $tw = await bootWiki();
});
afterEach(() => {
  $tw.wiki.deleteTiddler('$:/language');
});

const TRANSLATED = [
  'Welcome to TiddlyAgent',
  'TiddlyAgent Manual',
  'TiddlyAgent Manual: Getting started',
  'TiddlyAgent Manual: Providers',
  'TiddlyAgent Manual: Approvals and rollback',
  'TiddlyAgent Manual: Security',
  'TiddlyAgent Manual: Who may do what',
  'TiddlyAgent Manual: Plugins for agents',
  'TiddlyAgent Manual: Sources',
  'TiddlyAgent Manual: Memory',
  'TiddlyAgent Manual: Triggers and spending caps',
  'TiddlyAgent Manual: PDFs',
  'TiddlyAgent Manual: Compared with peers',
];
const CHINESE = /[\u4e00-\u9fff]/;
/** Written in Chinese, not just naming it (the English Getting started names 简体中文). */
const inChinese = (text: string) => (text.match(/[\u4e00-\u9fff]/g) ?? []).length > 50;

/** What the story river shows of `title`: its heading and its body, through the view template cascades. */
function shown(title: string): { heading: string; body: string } {
  const render = (template: string) =>
    $tw.wiki.renderText(
      'text/plain',
      'text/vnd.tiddlywiki',
      `\\import [subfilter{$:/core/config/GlobalImportFilter}]\n<$tiddler tiddler=${JSON.stringify(title)}>{{||${template}}}</$tiddler>`,
    );
  return { heading: render('$:/core/ui/ViewTemplate/title').trim(), body: render('$:/core/ui/ViewTemplate/body') };
}

const codeSpans = (text: string) => new Set([...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]));
const images = (text: string) => [...text.matchAll(/\[img\[[^|\]]*\|([^\]]+)\]\]/g)].map((m) => m[1]).sort();
const links = (title: string) => new Set($tw.wiki.getTiddlerLinks(title) as string[]);

test.each(TRANSLATED)('"%s" has a Chinese translation that names it, with a caption', (title) => {
  const translation = $tw.wiki.getTiddler(`${title}/zh-Hans`);
  expect(translation?.fields['translation-of']).toBe(title);
  expect(translation?.fields.caption).toMatch(CHINESE);
  expect(translation?.fields.text).toMatch(CHINESE);
  expect(translation?.fields.tags ?? []).toEqual([]);
});

test.each(TRANSLATED.filter((t) => t !== 'TiddlyAgent Manual'))('"%s" in Chinese keeps its links, code, field names and screenshots', (title) => {
  const english = $tw.wiki.getTiddlerText(title) as string;
  const chinese = $tw.wiki.getTiddlerText(`${title}/zh-Hans`) as string;
  expect([...links(`${title}/zh-Hans`)].sort()).toEqual([...links(title)].sort());
  for (const target of links(`${title}/zh-Hans`)) expect({ target, exists: $tw.wiki.tiddlerExists(target) }).toEqual({ target, exists: true });
  expect([...codeSpans(english)].filter((code) => !codeSpans(chinese).has(code))).toEqual([]);
  expect(images(chinese)).toEqual(images(english));
  // The same code blocks, word for word.
  expect([...chinese.matchAll(/```\n([\s\S]*?)```/g)].map((m) => m[1])).toEqual([...english.matchAll(/```\n([\s\S]*?)```/g)].map((m) => m[1]));
});

test('in zh-Hans each translated tiddler shows its translation, heading and body; in English, its own text', () => {
  for (const title of TRANSLATED) {
    const before = shown(title);
    expect({ title, heading: before.heading }).toEqual({ title, heading: title });
    expect({ title, chinese: inChinese(before.body) }).toEqual({ title, chinese: false });
    $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
    const after = shown(title);
    expect(after.heading).toBe($tw.wiki.getTiddler(`${title}/zh-Hans`).fields.caption);
    expect({ title, chinese: inChinese(after.body) }).toEqual({ title, chinese: true });
    $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/en-GB' });
    expect(shown(title)).toEqual(before);
    $tw.wiki.deleteTiddler('$:/language');
  }
});

test('a tiddler without a translation, and a "/zh-Hans" tiddler that translates another, show as they are', () => {
  $tw.wiki.addTiddler({ title: 'Plain note', text: 'Just English.' });
  $tw.wiki.addTiddler({ title: 'Plain note/zh-Hans', text: '不是它的译文。', 'translation-of': 'Another note' });
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  expect(shown('Plain note')).toEqual({ heading: 'Plain note', body: expect.stringContaining('Just English.') });
  expect(shown('TiddlyAgent Manual: Agents').heading).toBe('TiddlyAgent Manual: Agents');
});

test("the manual's contents in Chinese name each chapter by its Chinese caption, and mark the chapters still in English", () => {
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  const { body } = shown('TiddlyAgent Manual');
  expect(body).toContain('TiddlyAgent 手册：服务商');
  expect(body).toContain('TiddlyAgent 手册：谁可以做什么');
  expect(body).toContain('TiddlyAgent Manual: Agents（英文）');
});

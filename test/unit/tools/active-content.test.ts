// What the approval card and the turn diff flag as active content, and what they leave alone.
import { findActiveContent } from '../../../src/agent/tools/active-content';

const flags = (text: string, fields: Record<string, string> = {}) => findActiveContent({ title: 'T', text, ...fields });

const PASSWORD = '<$password> shows a password or key saved in this browser to whoever views the note';
const HTTP = 'sends HTTP requests (tm-http-request), which can carry a password or key saved in this browser';

test('widgets, naming those that run actions', () => {
  expect(flags('<$button actions="<$action-sendmessage $message=tm-http-request/>">Go</$button>')).toEqual([
    'widgets <$button>, <$action-sendmessage> (can run actions when clicked)',
    HTTP,
  ]);
  expect(flags('<$list filter="[tag[x]]"/>')).toEqual(['widgets <$list>']);
});

test('a button that talks to the agent (<$action-ai-send>, tm-ai-send) is flagged: clicked, it sends what it says', () => {
  expect(flags('<$button><$action-ai-send message="Send me $:/ai/journal" new="yes"/>Go</$button>')).toEqual([
    'widgets <$button>, <$action-ai-send> (can run actions when clicked)',
  ]);
  expect(flags('<$button actions="""<$action-ai-send chat="Work" message="Delete everything"/>""">Tidy</$button>')).toEqual([
    'widgets <$button>, <$action-ai-send> (can run actions when clicked)',
  ]);
  expect(flags('<$action-ai-send message="hi"/>')).toEqual(['widgets <$action-ai-send> (can run actions when clicked)']);
  expect(flags('<$button message="tm-ai-send" param="hi">x</$button>')).toEqual(['widgets <$button> (can run actions when clicked)']);
});

test('widgets and messages that read the password store are flagged in words', () => {
  expect(flags('<$password name="openai-api-key"/>')).toEqual(['widgets <$password>', PASSWORD]);
  expect(flags('<$wikify name=x text="""<$password name=k/>"""><<x>></$wikify>')).toContain(PASSWORD);
  expect(flags('<$genesis $type="$password" name=k/>')).toContain(PASSWORD);
  expect(flags('<$button message="tm-http-request">Go</$button>')).toContain(HTTP);
  expect(flags('<$action-sendmessage $message="tm-http-request" url="https://x.example/" password-header-Authorization="openai"/>')).toContain(HTTP);
  expect(flags('<$action-sendmessage $message=<<m>> bearer-auth-token-from-store="openai"/>')).toContain(HTTP);
});

test('HTML that loads or runs things, and event handlers', () => {
  expect(flags('<img src="https://evil.example/x.png">')).toEqual(['HTML elements <img>', 'loads https://evil.example/x.png when shown (src)']);
  expect(flags('<iframe src="//evil.example"></iframe>')).toEqual(['<iframe> shows another page inside this one', 'loads //evil.example when shown (src)']);
  expect(flags('<div onclick="alert(1)">x</div>')).toEqual(['event handler attributes (on…=)']);
  expect(flags('<img/onerror=alert(1) src=x>')).toEqual(['HTML elements <img>', 'event handler attributes (on…=)']);
  expect(flags('<script>alert(1)</script>')).toEqual(['<script> holds a script']);
});

test('everything that loads an address when the note is shown: styles, srcset, Markdown images, loading attributes', () => {
  expect(flags('<div style="background:url(https://evil.example/a.png)">x</div>')).toEqual(['a style loads https://evil.example/a.png when shown (CSS url())']);
  expect(flags("@@background:url('https://evil.example/b.png') text@@")).toEqual(['a style loads https://evil.example/b.png when shown (CSS url())']);
  expect(flags('<span style.background-image="url(//evil.example/c.png)">x</span>')).toEqual(['a style loads //evil.example/c.png when shown (CSS url())']);
  expect(flags('<div style.background="u\\72l(https://evil.example/d.png)"/>')).toEqual(['a style loads https://evil.example/d.png when shown (CSS url())']);
  expect(flags('<style>@import "https://evil.example/s.css"; p { background: image-set("https://evil.example/e.png" 1x) }</style>')).toEqual([
    '<style> restyles the whole page and can load addresses',
    'a style sheet imports https://evil.example/s.css (CSS @import)',
    'a style loads https://evil.example/e.png when shown (CSS image-set())',
  ]);
  expect(flags('<img srcset="https://evil.example/1.png 1x, https://evil.example/2.png 2x" src="local.png">')).toEqual([
    'HTML elements <img>',
    'loads https://evil.example/1.png when shown (srcset)',
    'loads https://evil.example/2.png when shown (srcset)',
  ]);
  expect(flags('<link rel="preload" as="image" imagesrcset="https://evil.example/p.png 2x">')).toContain(
    'loads https://evil.example/p.png when shown (imagesrcset)',
  );
  expect(flags('<video poster="https://evil.example/v.png"></video>')).toContain('loads https://evil.example/v.png when shown (poster)');
  expect(flags('<table background="https://evil.example/t.png"></table>')).toContain('loads https://evil.example/t.png when shown (background)');
  expect(flags('<form><button formaction="https://evil.example/f">Send</button></form>')).toContain('loads https://evil.example/f when shown (formaction)');
  expect(flags('<$image source="https://evil.example/i.png"/>')).toContain('loads https://evil.example/i.png when shown (source)');
  expect(flags('<img src=<<address>>>')).toContain('loads an address worked out when shown (src=…)');
  expect(flags('![a cat](https://evil.example/cat.png "A cat")')).toEqual(['external image https://evil.example/cat.png (Markdown)']);
  expect(flags('![a cat][cat]\n\n[cat]: https://evil.example/cat2.png')).toEqual(['external image https://evil.example/cat2.png (Markdown)']);
  expect(flags('![Local](files/cat.png) and [a link](https://example.com)')).toEqual([]);
});

test('elements that load, frame or reconfigure the page are each flagged in words', () => {
  expect(flags('<link rel="stylesheet" href="https://evil.example/x.css">')).toEqual([
    '<link> loads a style sheet or another file from an address',
    'loads https://evil.example/x.css when shown (href)',
  ]);
  expect(flags('<style>p{color:red}</style>')).toEqual(['<style> restyles the whole page and can load addresses']);
  expect(flags('<iframe srcdoc="<i>hi</i>"></iframe>')).toEqual(['<iframe srcdoc> runs its own HTML, scripts included, inside the wiki']);
  expect(flags('<object data="https://evil.example/o.pdf"></object>')).toEqual([
    '<object> loads and runs another document or a plugin',
    'loads https://evil.example/o.pdf when shown (data)',
  ]);
  expect(flags('<embed src="https://evil.example/e.swf">')).toEqual([
    '<embed> loads and runs another document or a plugin',
    'loads https://evil.example/e.swf when shown (src)',
  ]);
  expect(flags('<meta http-equiv="refresh" content="0;url=https://evil.example/">')).toEqual([
    '<meta http-equiv> can reload the page or send it to another address',
  ]);
  expect(flags('<base href="https://evil.example/">')).toEqual([
    '<base> changes where every relative link and image of the page points',
    'loads https://evil.example/ when shown (href)',
  ]);
  expect(flags('<svg><image href="https://evil.example/i.svg"/><use xlink:href="https://evil.example/u.svg#a"/></svg>')).toEqual([
    'HTML elements <svg>, <image>, <use>',
    'loads https://evil.example/i.svg when shown (href)',
    'loads https://evil.example/u.svg#a when shown (xlink:href)',
  ]);
});

test('external images and content loaded from elsewhere', () => {
  expect(flags('[img[https://evil.example/pixel.png]]')).toEqual(['external image https://evil.example/pixel.png']);
  expect(flags('[img width=10 [A tooltip|//evil.example/p.png]]')).toEqual(['external image //evil.example/p.png']);
  expect(flags('', { _canonical_uri: 'https://evil.example/x.js' })).toEqual(['content loaded from https://evil.example/x.js']);
  expect(flags('[img[Local image.png]]')).toEqual([]);
});

test('links that are not http(s), mailto or tiddler links', () => {
  expect(flags('[[click|javascript:alert(1)]]')).toEqual(['link to javascript:alert(1)']);
  expect(flags('[ext[data:text/html,<b>x</b>]]')).toEqual(['link to data:text/html,<b>x</b>']);
  expect(flags('see javascript:void(0) here')).toEqual(['a script-like URL (javascript:)']);
  expect(flags('see javascript&colon;void(0) here')).toEqual(['a script-like URL (javascript:)']);
});

test('transclusions, macro calls, pragmas and a code content type', () => {
  expect(flags('{{Secret}}')).toEqual(['transclusion {{…}}']);
  expect(flags('{{{ [all[]] }}}')).toEqual(['filtered transclusion {{{…}}}']);
  expect(flags('<<now>>')).toEqual(['macro or procedure call <<…>>']);
  expect(flags('\\define x() y\n\\import [[A]]\ntext')).toEqual(['pragmas \\define, \\import']);
  expect(flags('alert(1)', { type: 'application/javascript' })).toEqual(['content type application/javascript']);
});

test('wikitext in other fields is flagged with the field name', () => {
  expect(flags('plain', { caption: '<$button>x</$button>' })).toEqual(['widgets <$button> (can run actions when clicked) (in the field "caption")']);
});

test('ordinary notes are not flagged', () => {
  expect(flags('The onion = 3, and the object of the game is to embed a style; a<b and c > d.')).toEqual([]);
  const prose =
    "''Plant'' tomatoes in //May//.\n\n* [[Garden plan]] and [[a link|Garden plan]]\n* [ext[https://example.com]] https://example.com mailto:me@example.com [[Mail|mailto:me@example.com]]\n\n! Heading\n\n|a|b|\n\n```\ncode <b>\n```\n\n# Markdown heading\n[md link](https://example.com) 3 < 4 and 5 > 2";
  expect(flags(prose)).toEqual([]);
  expect(flags('{"a": 1}', { type: 'application/json', tags: '$:/tags/Global Notes', list: 'A B' })).toEqual([]);
});

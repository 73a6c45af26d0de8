// What the write gate takes for script-bearing HTML (the rule it names), with the usual
// evasions, and the ordinary text it leaves alone.
import { scriptInRenderedHtml, scriptInText, scriptProblem } from '../../../src/agent/tools/script-html';

const SCRIPT = 'a <script> element';
const SRCDOC = "an <iframe srcdoc> (it runs its own HTML, scripts included, in the wiki's page)";
const JS = 'a javascript: URL';

test.each([
  ['<script>alert(1)</script>', SCRIPT],
  ['<SCRIPT SRC=//evil.example/x.js></SCRIPT>', SCRIPT],
  ['<svg><script>alert(1)</script></svg>', SCRIPT],
  ['```\n<script>alert(1)</script>\n```', SCRIPT],
  ['`<script>`', SCRIPT],
  ['<$genesis $type="script">alert(1)</$genesis>', SCRIPT],
  ['<iframe srcdoc="<b>hi</b>"></iframe>', SRCDOC],
  ["<iframe\nSRCDOC='x'>", SRCDOC],
  ['<$genesis $type="iframe" srcdoc=<<page>>/>', SRCDOC],
  ['<object data="x.pdf"></object>', 'an <object> element (it loads and runs another document or a plugin)'],
  ['<embed src="x.swf">', 'an <embed> element (it loads and runs another document or a plugin)'],
  ['<img src=x onerror=alert(1)>', 'an event handler attribute (onerror=)'],
  ['<img/onerror=alert(1) src=x>', 'an event handler attribute (onerror=)'],
  ['<img src="x"onerror="alert(1)">', 'an event handler attribute (onerror=)'],
  ['<IMG SRC=x ONERROR\n=\talert(1)>', 'an event handler attribute (onerror=)'],
  ['<img title=">" onerror=alert(1) src=x>', 'an event handler attribute (onerror=)'],
  ['<img x="""a" onerror=alert(1) b=""">', 'an event handler attribute (onerror=)'],
  ['<svg onload=alert(1)>', 'an event handler attribute (onload=)'],
  ['<svg><animate onbegin=alert(1) attributeName=x dur=1s>', 'an event handler attribute (onbegin=)'],
  ['<$button actions="<div onclick=alert(1)>x</div>">Go</$button>', 'an event handler attribute (onclick=)'],
  ['<$genesis $type="div" onclick="alert(1)">x</$genesis>', 'an event handler attribute (onclick=)'],
  ['<a href="javascript:alert(1)">x</a>', JS],
  ['<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>', JS],
  ['<a href="javascript&colon;alert(1)">x</a>', JS],
  ['<a href="&#106;avascript:alert(1)">x</a>', JS],
  ['<a href="&#x6A&#x61vascript:alert(1)">x</a>', JS],
  ['<a href="java\tscript:alert(1)">x</a>', JS],
  ['<a href="java&#x09;script:alert(1)">x</a>', JS],
  ['<a href=" JavaScript:alert(1)">x</a>', JS],
  ['[[click|javascript:alert(1)]]', JS],
  ['[ext[javascript:alert(1)]]', JS],
  ['[ext[Click|javascript:alert(1)]]', JS],
  ['[Click](javascript:alert(1))', JS],
  ['[Click][r]\n\n[r]: javascript:alert(1)', JS],
  ['<svg><a><set attributeName="href" to="javascript:alert(1)"/><text>x</text></a></svg>', JS],
  ['<a href="vbscript:msgbox(1)">x</a>', 'a vbscript: URL'],
  ['<iframe src="data:text/html,<script>alert(1)</script>"></iframe>', 'an HTML data: URL (data:text/html)'],
  ['[ext[data:text/html;base64,PHNjcmlwdD4=]]', 'an HTML data: URL (data:text/html)'],
  ['<object data="DATA: Text/HTML,x">', 'an HTML data: URL (data:text/html)'],
])('%s is refused: %s', (text, rule) => {
  expect(scriptInText(text)).toBe(rule);
});

test.each([
  'The onion = 3, and the object of the game is to embed a script in a story.',
  'a<b and online = true',
  '<b>bold</b> the onion = 3 and <i>more</i>',
  'We use <<now>> and {{Note}} and <$list filter="[tag[x]]"/>.',
  '< script> is how not to write a tag; <span class="onion">x</span>',
  '<img src="https://example.com/cat.png"> and [ext[https://example.com]] and [[Garden]] and data:image/png',
  '<iframe src="https://www.youtube.com/embed/x"></iframe>',
  '<a href="#javascript-notes">notes</a>',
  // Widgets take on… names as their own parameters, which never reach an element.
  '<$let one="1" only="2"><<one>></$let> <$transclude $variable="greet" online="yes"/> <$action-setfield ongoing="yes"/>',
])('ordinary text is not refused: %s', (text) => {
  expect(scriptInText(text)).toBeUndefined();
});

test('every field is read, and the refusal names the rule and the field', () => {
  expect(scriptProblem('Note', { title: 'Note', text: 'fine', caption: '<img src=x onerror=alert(1)>' })).toBe(
    '"Note" would hold script-bearing HTML: an event handler attribute (onerror=) in the field "caption". The agent never writes HTML that can run a script in the wiki, not even inside a code block; describe it in words instead (e.g. "a script tag", "a javascript URL").',
  );
  expect(scriptProblem('Note', { title: 'Note', text: 'fine', caption: 'Fine' })).toBeUndefined();
});

test('rendered HTML: its tags and attribute values, not its text', () => {
  expect(scriptInRenderedHtml('<p><iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe></p>')).toBe(SRCDOC);
  expect(scriptInRenderedHtml('<p><a href="java&#x09;script:alert(1)">x</a></p>')).toBe(JS);
  expect(scriptInRenderedHtml('<p><SCRIPT>alert(1)</SCRIPT></p>')).toBe(SCRIPT);
  expect(
    scriptInRenderedHtml('<p><safe-script>alert(1)</safe-script> &lt;script&gt; javascript:x</p><a class="tc-tiddlylink" href="#javascript%3Ax">x</a>'),
  ).toBeUndefined();
});

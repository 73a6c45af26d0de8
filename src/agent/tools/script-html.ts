/*\
Script-bearing HTML, which the write gate refuses in whatever the agent writes (DESIGN 8,
issue 23): markup that can run a script in the wiki's own page when the note is viewed or
clicked. TiddlyWiki renders <script> inert and drops on…= attributes of the elements it
makes, but an <iframe srcdoc> runs its own HTML in the wiki's origin, a javascript: link runs
when clicked, and a note is not always shown by TiddlyWiki's own renderer (an export, another
tool, a plugin). So none of these may be written:
- <script>, <object>, <embed>, <applet> (also as <$genesis $type=…>);
- an <iframe srcdoc> (any element with a srcdoc attribute);
- an event handler attribute (on…=) on an HTML or SVG element, or on <$genesis>;
- a javascript: or vbscript: URL, or an HTML data: URL (data:text/html, xhtml), anywhere:
  in an attribute, a link, [ext[…]], Markdown; with character references (`&colon;`, `&#106;`)
  and the tabs or line breaks a browser drops from a URL taken into account.
Every field is read, code blocks included: a field may be parsed by wikitext, Markdown, a
transclusion or a <$wikify>, so a scanner cannot know what is only shown as code. Ordinary
words ("onion = 3", "an object", "embed a video") are never taken for markup outside a tag.

The text as written cannot show what wikitext puts together when it is shown (a macro's
`$param$`, <$genesis $type=<<…>>>), so the gate also reads the tiddler as it renders
(scriptInRenderedHtml).
\*/
import type { TiddlerFields } from '../store/wiki-port';
import { eventHandler, tagsIn, urlText, type Tag } from './html-tags';

const SCRIPT_URL = /(?:^|[^a-z0-9+.-])(javascript|vbscript):|data:\s*(?:text\/html|application\/xhtml\+xml)/i;

const RUNNING_ELEMENTS: Record<string, string> = {
  script: 'a <script> element',
  object: 'an <object> element (it loads and runs another document or a plugin)',
  embed: 'an <embed> element (it loads and runs another document or a plugin)',
  applet: 'an <applet> element (it runs a Java program)',
};
const SRCDOC = "an <iframe srcdoc> (it runs its own HTML, scripts included, in the wiki's page)";

/** Why `fields` would hold script-bearing HTML (the rule and the field), or undefined. */
export function scriptProblem(title: string, fields: TiddlerFields): string | undefined {
  for (const [name, value] of Object.entries(fields)) {
    const rule = value ? scriptInText(value) : undefined;
    if (rule) return `"${title}" would hold script-bearing HTML: ${rule}${name === 'text' ? '' : ` in the field "${name}"`}. ${NEVER}`;
  }
  return undefined;
}

/** Why a rendering of `title` (TiddlyWiki's HTML) holds script-bearing HTML, or undefined. */
export function renderedScriptProblem(title: string, html: string): string | undefined {
  const rule = scriptInRenderedHtml(html);
  return rule && `"${title}" would render script-bearing HTML: ${rule}. ${NEVER}`;
}

const NEVER =
  'The agent never writes HTML that can run a script in the wiki, not even inside a code block; describe it in words instead (e.g. "a script tag", "a javascript URL").';

/** The first rule `text` breaks, or undefined. */
export function scriptInText(text: string): string | undefined {
  return scriptUrl(text) ?? scriptInTags(tagsIn(text));
}

/** The first rule rendered HTML breaks: its tags and attribute values (its text is only text). */
export function scriptInRenderedHtml(html: string): string | undefined {
  const tags = tagsIn(html);
  const inTags = scriptInTags(tags);
  if (inTags) return inTags;
  for (const tag of tags) {
    for (const attribute of tag.attributes) {
      const url = scriptUrl(attribute.value);
      if (url) return url;
    }
  }
  return undefined;
}

function scriptUrl(text: string): string | undefined {
  const m = SCRIPT_URL.exec(urlText(text));
  if (!m) return undefined;
  return m[1] ? `a ${m[1].toLowerCase()}: URL` : 'an HTML data: URL (data:text/html)';
}

function scriptInTags(tags: Tag[]): string | undefined {
  for (const tag of tags) {
    // <$genesis $type="script"> makes the element its $type names.
    const types = tag.name === '$genesis' ? tag.attributes.filter((a) => a.name === '$type' && !a.dynamic).map((a) => a.value.trim().toLowerCase()) : [];
    for (const name of [tag.name, ...types]) {
      const rule = RUNNING_ELEMENTS[name];
      if (rule) return rule;
    }
    const handler = eventHandler(tag);
    if (handler) return `an event handler attribute (${handler.name}=)`;
    if (tag.attributes.some((a) => a.name === 'srcdoc')) return SRCDOC;
  }
  return undefined;
}

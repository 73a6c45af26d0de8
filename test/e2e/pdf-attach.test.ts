// A PDF dropped onto the composer, in Chromium, as a user meets it: it becomes an application/pdf
// tiddler and a chip; the agent (the mock LLM) reads it with wiki-read, and what the model gets
// back is the PDF's text page by page, each after its [page N] line, extracted by PDF.js in a Web
// Worker made of the pdf.js module's source (never required on the page); the prompt told the model where the
// attached PDF's text is; the reply cites the PDF by page, and its source chip says so ("Garden
// club.pdf, p. 2") and opens the PDF when clicked. A file that says it is a PDF but is not one is refused with a line.
import { navigate, useServedWiki, type ServedWikiSession } from '../helpers/e2e';

const { makePdf } = require('../../scripts/make-pdf.cjs');

jest.setTimeout(90_000);

const PDF = makePdf(['Minutes of the garden club.', 'The heron nests by the old mill.', 'Next meeting in May.']).toString('base64');
const chat = (s: ServedWikiSession, title: string) => s.page.locator(`.tc-ai-chat[data-chat="${title}"]`);

function drop(s: ServedWikiSession, title: string, name: string, base64: string): Promise<boolean> {
  return s.page.evaluate(
    ({ title, name, base64 }) => {
      const data = new DataTransfer();
      data.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name, { type: 'application/pdf' }));
      const input = document.querySelector(`.tc-ai-chat[data-chat="${title}"] textarea.tc-ai-chat-input`)!;
      const event = new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true });
      input.dispatchEvent(event);
      return event.defaultPrevented;
    },
    { title, name, base64 },
  );
}

describe('a wiki whose page runs the turns', () => {
  const s = useServedWiki({ mockDelayMs: 1 });

  test('a dropped PDF is attached, and the agent reads it page by page', async () => {
    await s.page.evaluate(() => {
      const wiki = (window as any).$tw.wiki;
      wiki.addTiddler({
        title: 'PDF reader',
        tags: '$:/tags/AI/Agent',
        'agent-provider': '$:/demo/providers/mock-llm',
        'agent-tools': 'wiki-read',
        text: 'You read.',
      });
      wiki.addTiddler({ title: 'PDF chat', agent: 'PDF reader', 'agent-status': 'idle', text: '' });
    });
    await navigate(s.page, 'PDF chat');
    await chat(s, 'PDF chat').waitFor();
    // PDF.js is not part of the page until a PDF is read.
    expect(await s.page.evaluate(() => !!(window as any).$tw.modules.titles['$:/plugins/tiddlyagent/pdf/pdf.js'].exports)).toBe(false);
    expect(await drop(s, 'PDF chat', 'Garden club.pdf', PDF)).toBe(true);
    await s.page.waitForFunction(() => document.querySelectorAll('.tc-ai-chat[data-chat="PDF chat"] .tc-ai-chat-composer .tc-ai-chip').length === 1);
    expect(await chat(s, 'PDF chat').locator('.tc-ai-chat-composer .tc-ai-chip').getAttribute('data-title')).toBe('Garden club.pdf');
    expect(await s.page.evaluate(() => (window as any).$tw.wiki.getTiddler('Garden club.pdf')?.fields.type)).toBe('application/pdf');

    s.wiki.mock.queue({ toolCalls: [{ name: 'wiki-read', arguments: { title: 'Garden club.pdf' } }] });
    s.wiki.mock.queue({ text: 'Page 2 says the heron nests by the old mill ([[Garden club.pdf]] (page 2)).' });
    const before = s.wiki.mock.requests.length;
    await chat(s, 'PDF chat').locator('textarea.tc-ai-chat-input').fill('Where does the heron nest?');
    await chat(s, 'PDF chat').locator('button.tc-ai-chat-send').click();
    await s.page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="PDF chat"]')?.getAttribute('data-status') === 'completed');
    const requests = (s.wiki.mock.requests.slice(before) as { path: string; body: { messages?: { role: string; content: unknown }[] } | null }[]).filter(
      (r) => /chat\/completions/.test(r.path) && r.body?.messages,
    );
    const text = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));
    const user = requests[0]!.body!.messages!.filter((m) => m.role === 'user').at(-1);
    expect(text(user?.content)).toContain('read its text with wiki-read');
    const result = requests
      .at(-1)!
      .body!.messages!.filter((m) => m.role === 'tool')
      .at(-1);
    expect(text(result?.content)).toContain('[page 2]\nThe heron nests by the old mill.');
    expect(text(result?.content)).toContain('[page 3]\nNext meeting in May.');
    // Read in a Web Worker made of pdf.js's source, not on the page's thread: PDF.js was never required here.
    expect(await s.page.evaluate(() => (window as any).$tw.modules.execute('$:/plugins/tiddlyagent/agent/lib.js', '').pdfTextStats().inWorker)).toBe(1);
    expect(await s.page.evaluate(() => !!(window as any).$tw.modules.titles['$:/plugins/tiddlyagent/pdf/pdf.js'].exports)).toBe(false);
    await chat(s, 'PDF chat').locator('.tc-ai-message-assistant', { hasText: 'the heron nests by the old mill' }).waitFor();
    const source = chat(s, 'PDF chat').locator('.tc-ai-message-assistant .tc-ai-source');
    await source.waitFor();
    expect(await source.textContent()).toBe('Garden club.pdf, p. 2');
    await source.click();
    await s.page.locator('.tc-tiddler-frame[data-tiddler-title="Garden club.pdf"]').waitFor();
  });

  test('a file named .pdf that is no PDF is refused with a line saying so, and nothing is saved', async () => {
    const fake = Buffer.from('Just text, not a PDF.').toString('base64');
    expect(await drop(s, 'PDF chat', 'notes.pdf', fake)).toBe(true);
    await chat(s, 'PDF chat').locator('.tc-ai-chat-notice', { hasText: '“notes.pdf” is not a PNG, JPEG, GIF or WebP image or a PDF' }).waitFor();
    expect(await s.page.evaluate(() => (window as any).$tw.wiki.tiddlerExists('notes.pdf'))).toBe(false);
  });
});

// Images pasted or dropped onto the composer, in Chromium, as a user meets them: a pasted
// screenshot (a paste event carrying an image File) becomes an image tiddler and a chip, and
// reaches the model as an image part (the mock LLM's recorded request); a dropped image too,
// under its own name; a paste that carries text stays a text paste; an image over the size
// limit and a file that is no image are refused with a line saying why, and nothing is saved
// or imported; a model that takes no images refuses the turn, saying so, before any request.
// The server edition: the send waits until the page has saved the pasted image to the server,
// which reads it from its own store.
import { navigate, useServedWiki, type ServedWikiSession } from '../helpers/e2e';

jest.setTimeout(90_000);

/** A 1x1 PNG, with a marker after its end so each test's image is told apart in a request. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAgNg6oAAAAABJRU5ErkJggg==';
const png = (marker: string) => Buffer.concat([Buffer.from(PNG, 'base64'), Buffer.from(marker)]).toString('base64');

interface FileSpec {
  name: string;
  type: string;
  base64?: string;
  /** Bytes of zeros after a PNG header instead of `base64` (a big file). */
  size?: number;
}

type Served = ServedWikiSession;

const chat = (s: Served, title: string) => s.page.locator(`.tc-ai-chat[data-chat="${title}"]`);

async function openChat(s: Served, title: string, agent: string): Promise<void> {
  await s.page.evaluate(([c, a]) => (window as any).$tw.wiki.addTiddler({ title: c, agent: a, 'agent-status': 'idle', text: '' }), [title, agent]);
  await navigate(s.page, title);
  await chat(s, title).waitFor();
}

/** Paste (`paste`) or drop (`drop`) files, and text, onto a chat's composer; whether the page prevented the default. */
function put(s: Served, title: string, how: 'paste' | 'drop', files: FileSpec[], text?: string): Promise<boolean> {
  return s.page.evaluate(
    ({ title, how, files, text }) => {
      const data = new DataTransfer();
      for (const f of files) {
        const bytes = f.base64 ? Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0)) : new Uint8Array(f.size ?? 0);
        if (!f.base64) bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
        data.items.add(new File([bytes], f.name, { type: f.type }));
      }
      if (text) data.setData('text/plain', text);
      const input = document.querySelector(`.tc-ai-chat[data-chat="${title}"] textarea.tc-ai-chat-input`)!;
      const event =
        how === 'paste'
          ? new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true })
          : new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true });
      input.dispatchEvent(event);
      return event.defaultPrevented;
    },
    { title, how, files, text },
  );
}

const chips = (s: Served, title: string) =>
  chat(s, title)
    .locator('.tc-ai-chat-composer .tc-ai-chip')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-title') ?? ''));

async function send(s: Served, title: string, text: string, want = 'completed'): Promise<void> {
  await chat(s, title).locator('textarea.tc-ai-chat-input').fill(text);
  await chat(s, title).locator('button.tc-ai-chat-send').click();
  await s.page.waitForFunction(([c, st]) => document.querySelector(`.tc-ai-chat[data-chat="${c}"]`)?.getAttribute('data-status') === st, [title, want]);
}

/** The image URLs of the last user message of each chat request the mock received. */
function sentImages(s: Served): string[][] {
  return (s.wiki.mock.requests as { path: string; body: { messages?: { role: string; content: unknown }[] } | null }[])
    .filter((r) => /chat\/completions/.test(r.path) && r.body?.messages)
    .map((r) => {
      const user = r.body!.messages!.filter((m) => m.role === 'user').at(-1);
      return Array.isArray(user?.content) ? user.content.filter((p: any) => p.type === 'image_url').map((p: any) => p.image_url.url as string) : [];
    });
}

const tiddler = (s: Served, title: string) => s.page.evaluate((t) => (window as any).$tw.wiki.getTiddler(t)?.fields ?? null, title);
const notice = (s: Served, title: string) => chat(s, title).locator('.tc-ai-chat-notice').textContent();
const setup = (s: Served) => () =>
  s.page.evaluate(() => {
    const wiki = (window as any).$tw.wiki;
    wiki.addTiddler({ title: 'Vision agent', tags: '$:/tags/AI/Agent', 'agent-provider': '$:/demo/providers/mock-llm', text: 'You look at pictures.' });
    wiki.addTiddler({
      title: 'Text-only agent',
      tags: '$:/tags/AI/Agent',
      'agent-provider': '$:/demo/providers/mock-llm',
      'agent-model': 'gpt-3.5-turbo',
      text: 'You read.',
    });
  });

describe('a wiki whose page runs the turns', () => {
  const s = useServedWiki({ mockDelayMs: 1 });
  beforeAll(async () => setup(s)());

  test('a pasted screenshot becomes an image tiddler and a chip, and reaches the model as an image part', async () => {
    await openChat(s, 'Paste chat', 'Vision agent');
    const image = png('pasted');
    expect(await put(s, 'Paste chat', 'paste', [{ name: 'image.png', type: 'image/png', base64: image }])).toBe(true);
    await s.page.waitForFunction(() => document.querySelectorAll('.tc-ai-chat[data-chat="Paste chat"] .tc-ai-chat-composer .tc-ai-chip').length === 1);
    const [title] = await chips(s, 'Paste chat');
    expect(title).toMatch(/^Pasted image \d{4}-\d\d-\d\d \d\d\.\d\d\.\d\d\.png$/);
    expect(await tiddler(s, title!)).toMatchObject({ type: 'image/png', text: image });
    expect(await notice(s, 'Paste chat')).toContain(`Attached “${title}”`);
    const before = sentImages(s).length;
    await send(s, 'Paste chat', 'What is in this screenshot?');
    expect(sentImages(s).slice(before)[0]).toEqual([`data:image/png;base64,${image}`]);
    // The message lists the image like any attachment, and the composer is empty again.
    expect(await chat(s, 'Paste chat').locator('.tc-ai-message-user .tc-ai-chip').first().getAttribute('data-title')).toBe(title);
    expect(await chips(s, 'Paste chat')).toEqual([]);
  });

  test('a dropped image keeps its file name and is sent; a paste carrying text stays a text paste', async () => {
    await openChat(s, 'Drop chat', 'Vision agent');
    const image = png('dropped');
    expect(await put(s, 'Drop chat', 'drop', [{ name: 'garden plan.png', type: 'image/png', base64: image }])).toBe(true);
    await s.page.waitForFunction(() => document.querySelectorAll('.tc-ai-chat[data-chat="Drop chat"] .tc-ai-chat-composer .tc-ai-chip').length === 1);
    expect(await chips(s, 'Drop chat')).toEqual(['garden plan.png']);
    // A spreadsheet's cells come with a picture of them: the text is what was meant.
    expect(await put(s, 'Drop chat', 'paste', [{ name: 'image.png', type: 'image/png', base64: png('cells') }], 'A1\tB1')).toBe(false);
    expect(await chips(s, 'Drop chat')).toEqual(['garden plan.png']);
    const before = sentImages(s).length;
    await send(s, 'Drop chat', 'Describe the plan');
    expect(sentImages(s).slice(before)[0]).toEqual([`data:image/png;base64,${image}`]);
    // No TiddlyWiki import was started by the drop.
    expect(await tiddler(s, '$:/Import')).toBeNull();
    // A file named like a system tiddler becomes an ordinary one (the agent could not see a hidden one).
    await put(s, 'Drop chat', 'drop', [{ name: '$:/ai/[[secret]].png', type: 'image/png', base64: png('named') }]);
    await s.page.waitForFunction(() => document.querySelectorAll('.tc-ai-chat[data-chat="Drop chat"] .tc-ai-chat-composer .tc-ai-chip').length === 1);
    expect(await chips(s, 'Drop chat')).toEqual(['ai/secret.png']);
  });

  test('an image over 5 MB and a file that is no image are refused with the reason; nothing is saved', async () => {
    await openChat(s, 'Refuse chat', 'Vision agent');
    const count = () => s.page.evaluate(() => (window as any).$tw.wiki.filterTiddlers('[all[tiddlers]]').length as number);
    const start = await count();
    expect(await put(s, 'Refuse chat', 'paste', [{ name: 'image.png', type: 'image/png', size: 6 * 1024 * 1024 }])).toBe(true);
    await s.page.waitForFunction(() =>
      /more than the 5 MB/.test(document.querySelector('.tc-ai-chat[data-chat="Refuse chat"] .tc-ai-chat-notice')?.textContent ?? ''),
    );
    expect(await notice(s, 'Refuse chat')).toBe('“image.png” is 6 MB, more than the 5 MB an image may have, so it was not attached.');
    await put(s, 'Refuse chat', 'drop', [{ name: 'notes.txt', type: 'text/plain', base64: btoa('just text') }]);
    await s.page.waitForFunction(() => /notes\.txt/.test(document.querySelector('.tc-ai-chat[data-chat="Refuse chat"] .tc-ai-chat-notice')?.textContent ?? ''));
    expect(await notice(s, 'Refuse chat')).toBe('“notes.txt” is not a PNG, JPEG, GIF or WebP image or a PDF, so it was not attached.');
    expect(await chips(s, 'Refuse chat')).toEqual([]);
    expect(await count()).toBe(start);
    expect(await tiddler(s, '$:/Import')).toBeNull();
  });

  test('a model that takes no images: the turn fails saying so and what to change, and nothing is sent', async () => {
    await openChat(s, 'Text-only chat', 'Text-only agent');
    await put(s, 'Text-only chat', 'paste', [{ name: 'image.png', type: 'image/png', base64: png('text only') }]);
    await s.page.waitForFunction(() => document.querySelectorAll('.tc-ai-chat[data-chat="Text-only chat"] .tc-ai-chat-composer .tc-ai-chip').length === 1);
    const before = s.wiki.mock.requests.length;
    await send(s, 'Text-only chat', 'What is this?', 'failed');
    const error = await chat(s, 'Text-only chat').locator('.tc-ai-message-error').last().textContent();
    expect(error).toContain('The model "gpt-3.5-turbo" does not take images');
    expect(error).toContain('choose a model that takes images');
    expect(s.wiki.mock.requests.length).toBe(before);
  });
});

describe('the server edition', () => {
  const s = useServedWiki({ mockDelayMs: 1, edition: 'server' });
  beforeAll(async () => setup(s)());

  test('a send right after the paste waits until the image is on the server, which sends it to the model', async () => {
    await openChat(s, 'Server paste chat', 'Vision agent');
    // 4 MB: its PUT to the server takes longer than the send's POST.
    await chat(s, 'Server paste chat').locator('textarea.tc-ai-chat-input').fill('And this big one?');
    await put(s, 'Server paste chat', 'paste', [{ name: 'image.png', type: 'image/png', size: 4 * 1024 * 1024 }]);
    const before = sentImages(s).length;
    // Send the moment the chip is shown, before the page's syncer can have saved the image.
    await s.page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          const root = document.querySelector('.tc-ai-chat[data-chat="Server paste chat"]')!;
          const look = () => {
            if (!root.querySelector('.tc-ai-chat-composer .tc-ai-chip')) return void requestAnimationFrame(look);
            (root.querySelector('button.tc-ai-chat-send') as HTMLButtonElement).click();
            resolve();
          };
          look();
        }),
    );
    await s.page.waitForFunction(() => document.querySelector('.tc-ai-chat[data-chat="Server paste chat"]')?.getAttribute('data-status') === 'completed');
    const [url] = sentImages(s).slice(before)[0] ?? [];
    expect(url?.startsWith('data:image/png;base64,iVBORw0KGgo')).toBe(true);
    expect(url!.length).toBeGreaterThan(5_000_000);
  });
});

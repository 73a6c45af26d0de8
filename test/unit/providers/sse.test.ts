/*\
SSE reading: framing rules, UTF-8 across reads, non-SSE residue, idle timeout and abort.
\*/
import { ProviderError } from '../../../src/agent/providers/errors';
import { openEventStream, readSse, type SseItem } from '../../../src/agent/providers/sse';
import { fakeFetch, split, stallingStream, streamOf } from './replay';

const enc = (s: string) => new TextEncoder().encode(s);

async function readAll(body: ReadableStream<Uint8Array>, opts = {}): Promise<SseItem[]> {
  const items: SseItem[] = [];
  for await (const item of readSse(body, opts)) items.push(item);
  return items;
}

async function readBytewise(text: string): Promise<SseItem[]> {
  return readAll(streamOf(split(enc(text), 'bytes')));
}

const ev = (data: string, event?: string): SseItem => (event ? { kind: 'event', event, data } : { kind: 'event', data });

describe('readSse framing', () => {
  it('accepts LF, CRLF, bare CR and a mix of them', async () => {
    expect(await readBytewise('data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\r\n\n')).toEqual([ev('a'), ev('b'), ev('c'), ev('d')]);
  });

  it('skips comments, keeps event names, joins multi-line data, allows data: without a space', async () => {
    const body = ': keep-alive\n\nevent: error\ndata: {"x":\ndata:1}\n\n:ping\ndata:[DONE]\n\n';
    expect(await readBytewise(body)).toEqual([ev('{"x":\n1}', 'error'), ev('[DONE]')]);
  });

  it('strips a byte-order mark at the start', async () => {
    expect(await readAll(streamOf([new Uint8Array([0xef, 0xbb, 0xbf]), enc('data: x\n\n')]))).toEqual([ev('x')]);
  });

  it('keeps multi-byte characters intact when reads cut them', async () => {
    expect(await readBytewise('data: 日本語 😊 Ünïcödé\n\n')).toEqual([ev('日本語 😊 Ünïcödé')]);
  });

  it('dispatches a last event that lacks the closing blank line, marked as cut there', async () => {
    expect(await readAll(streamOf([enc('data: a\n\ndata: [DONE]\n')]))).toEqual([ev('a'), { ...ev('[DONE]'), cut: true }]);
    expect(await readAll(streamOf([enc('data: [DONE]')]))).toEqual([{ ...ev('[DONE]'), cut: true }]);
  });

  it('reports non-SSE text (a raw JSON error after events, as Vertex sends it) once, at the end', async () => {
    const raw = '{\n  "error": {\n    "code": 499,\n    "message": "The operation was cancelled.",\n    "status": "CANCELLED"\n  }\n}\n';
    const items = await readBytewise(`data: {"a":1}\r\n\r\ndata: {"a":2}\r\n\r\n${raw}`);
    expect(items.slice(0, 2)).toEqual([ev('{"a":1}'), ev('{"a":2}')]);
    expect(items[2]?.kind).toBe('residue');
    expect(JSON.parse((items[2] as { text: string }).text)).toEqual({ error: { code: 499, message: 'The operation was cancelled.', status: 'CANCELLED' } });
    expect(items).toHaveLength(3);
  });

  it('yields nothing for an empty body', async () => {
    expect(await readAll(streamOf([]))).toEqual([]);
  });
});

describe('readSse idle timeout and abort', () => {
  it('fails with a timeout when no byte arrives at all', async () => {
    const { stream, cancelled } = stallingStream();
    const err = await readAll(stream, { idleTimeoutMs: 30, source: 'http://localhost:11434/v1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'timeout', retryable: true });
    expect((err as Error).message).toContain('http://localhost:11434/v1');
    expect(cancelled()).toBe(true);
  });

  it('fails with a timeout when the stream stalls after some events', async () => {
    const { stream } = stallingStream([enc('data: a\n\n')]);
    const seen: SseItem[] = [];
    const err = await (async () => {
      for await (const item of readSse(stream, { idleTimeoutMs: 30 })) seen.push(item);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([ev('a')]);
    expect(err).toMatchObject({ kind: 'timeout' });
  });

  it('restarts the idle timer on every read, keep-alive comments included', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
    try {
      let n = 0;
      // One comment every 30 ms for 300 ms: far longer than the 50 ms idle limit in total.
      const stream = new ReadableStream<Uint8Array>({
        pull: (c) =>
          new Promise<void>((resolve) =>
            setTimeout(() => {
              if (n++ < 10) c.enqueue(enc(': keep-alive\n\n'));
              else {
                c.enqueue(enc('data: done\n\n'));
                c.close();
              }
              resolve();
            }, 30),
          ),
      });
      const result = readAll(stream, { idleTimeoutMs: 50 });
      for (let i = 0; i < 12; i++) await jest.advanceTimersByTimeAsync(30);
      expect(await result).toEqual([ev('done')]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('ends promptly with `aborted` when the signal fires during a stalled read', async () => {
    const { stream, cancelled } = stallingStream([enc('data: a\n\n')]);
    const controller = new AbortController();
    const it = readSse(stream, { signal: controller.signal, idleTimeoutMs: 60_000 });
    expect((await it.next()).value).toEqual(ev('a'));
    const pending = it.next();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' });
    expect(cancelled()).toBe(true);
  });

  it('cancels the body when the consumer stops early', async () => {
    const { stream, cancelled } = stallingStream([enc('data: a\n\ndata: b\n\n')]);
    for await (const item of readSse(stream)) {
      expect(item).toEqual(ev('a'));
      break;
    }
    expect(cancelled()).toBe(true);
  });
});

describe('openEventStream', () => {
  const base = { url: 'http://x/v1/chat/completions', init: { method: 'POST' }, idleTimeoutMs: 30, ctx: { baseUrl: 'http://x/v1' } };

  it('times out while waiting for the response headers, even if fetch ignores the signal', async () => {
    const fetch = fakeFetch(() => new Promise<Response>(() => undefined));
    await expect(openEventStream({ ...base, fetch, signal: new AbortController().signal })).rejects.toMatchObject({ kind: 'timeout' });
    expect(fetch.calls[0]!.init.signal?.aborted).toBe(true);
  });

  it('is aborted while waiting for the response headers', async () => {
    const controller = new AbortController();
    const p = openEventStream({ ...base, idleTimeoutMs: 60_000, fetch: fakeFetch(() => new Promise<Response>(() => undefined)), signal: controller.signal });
    controller.abort();
    await expect(p).rejects.toMatchObject({ kind: 'aborted' });
  });

  it('refuses to start with an already aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    const fetch = fakeFetch(() => new Response(''));
    await expect(openEventStream({ ...base, fetch, signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' });
    expect(fetch.calls).toHaveLength(0);
  });
});

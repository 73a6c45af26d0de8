// The pure parts of semantic search: chunking, the vector index and its stored form (a damaged
// or foreign file is refused with a reason), rank fusion, and the embedding adapters' requests
// and errors against the mock server's deterministic embeddings (real HTTP on loopback).
import { chunkText, chunkTiddler, fingerprint, CHUNK_CHARS, MAX_CHUNKS } from '../../../src/agent/search/chunks';
import { fuseRankings } from '../../../src/agent/search/rank-fusion';
import { VectorIndex, INDEX_FORMAT } from '../../../src/agent/search/vector-index';
import { createEmbeddingModel } from '../../../src/agent/providers/embeddings';
import { isProviderError } from '../../../src/agent/providers/errors';
const { startMockLlm, hashedEmbedding } = require('../../../scripts/mock-llm.cjs');

const vec = (...xs: number[]) => Float32Array.from(xs);

describe('chunks', () => {
  test('paragraphs are merged up to the chunk size, long ones cut at a sentence, the title in front', () => {
    const long = 'A sentence that goes on. '.repeat(100);
    const chunks = chunkText(`First paragraph.\n\nSecond paragraph.\n\n${long}`);
    expect(chunks[0]).toBe('First paragraph.\nSecond paragraph.');
    expect(chunks.every((c) => c.length <= CHUNK_CHARS)).toBe(true);
    expect(chunks.slice(1).every((c) => c.endsWith('on.'))).toBe(true);
    expect(chunkTiddler('Title', 'Body')).toEqual(['Title\n\nBody']);
    expect(chunkTiddler('Only a title', '')).toEqual(['Only a title']);
    expect(chunkText('word '.repeat(100_000)).length).toBe(MAX_CHUNKS);
  });

  test('the fingerprint changes with the title or the text', () => {
    expect(fingerprint('a', 'b')).toBe(fingerprint('a', 'b'));
    expect(fingerprint('a', 'b')).not.toBe(fingerprint('a', 'c'));
    expect(fingerprint('a', 'b')).not.toBe(fingerprint('b', 'b'));
  });
});

describe('vector index', () => {
  test('top k by cosine, one hit per tiddler (its best chunk), deletes and replacements', () => {
    const index = new VectorIndex('m', 3);
    index.set('North', 'f1', [vec(0, 1, 0)]);
    index.set('East', 'f2', [vec(0, 0, 1), vec(1, 0.1, 0)]);
    index.set('Mixed', 'f3', [vec(1, 1, 0)]);
    expect(index.search(vec(2, 0, 0), 2).map((h) => [h.title, h.chunk])).toEqual([
      ['East', 1],
      ['Mixed', 0],
    ]);
    expect(index.search(vec(1, 0, 0), 5, (t) => t !== 'East').map((h) => h.title)).toEqual(['Mixed', 'North']);
    index.delete('East');
    index.set('North', 'f4', [vec(1, 0, 0)]);
    expect(index.search(vec(1, 0, 0), 5).map((h) => h.title)).toEqual(['North', 'Mixed']);
    expect(index.fingerprintOf('North')).toBe('f4');
    expect(() => index.set('Bad', 'f', [vec(1, 2)])).toThrow(/2 dimensions does not fit an index of 3/);
  });

  test('grows past its capacity and reuses freed rows', () => {
    const index = new VectorIndex('m', 4, 2);
    for (let i = 0; i < 50; i++) index.set(`T${i}`, 'f', [vec(i, 1, 0, 0), vec(0, 0, 1, i)]);
    for (let i = 0; i < 25; i++) index.delete(`T${i}`);
    const bytes = index.bytes;
    for (let i = 0; i < 25; i++) index.set(`U${i}`, 'f', [vec(1, 0, 0, 0), vec(0, 1, 0, 0)]);
    expect(index.bytes).toBe(bytes);
    expect(index.size).toBe(50);
  });

  test('a stored index loads back exactly; a damaged or foreign one is refused with the reason', () => {
    const index = new VectorIndex('model-a', 3);
    index.set('Ünïcode title', 'fp', [vec(1, 2, 3), vec(0, 0, 1)]);
    index.set('Other', 'fp2', [vec(3, 2, 1)]);
    const blob = index.serialize();
    const back = VectorIndex.load(blob, 'model-a');
    expect('index' in back && back.index.search(vec(1, 2, 3), 1)[0]).toMatchObject({ title: 'Ünïcode title', chunk: 0 });
    expect('index' in back && back.index.fingerprintOf('Other')).toBe('fp2');

    const problem = (b: ArrayBuffer | Uint8Array, model = 'model-a', dims?: number) => {
      const r = VectorIndex.load(b, model, dims);
      return 'problem' in r ? r.problem : 'loaded';
    };
    expect(problem(blob, 'model-b')).toMatch(/model "model-a", not "model-b"/);
    expect(problem(blob, 'model-a', 768)).toMatch(/3 dimensions, the model now gives 768/);
    expect(problem(new Uint8Array(blob).slice(0, 100))).toMatch(/cut short|damaged/);
    expect(problem(new TextEncoder().encode('<html>not an index</html>'))).toMatch(/not a TiddlyAgent vector index/);
    expect(problem(new Uint8Array(3))).toMatch(/too short/);
    // Another format version: the header says so.
    const other = new Uint8Array(blob.slice(0));
    const header = new TextDecoder().decode(other.subarray(8, 8 + new DataView(other.buffer).getUint32(4, true)));
    other.set(new TextEncoder().encode(header.replace(`"format":${INDEX_FORMAT}`, `"format":${INDEX_FORMAT + 1}`)), 8);
    expect(problem(other)).toMatch(/another version \(format 2, this one reads 1\)/);
    // A flipped byte in the vectors that makes a NaN.
    const nan = new Uint8Array(blob.slice(0));
    nan.set([0xff, 0xff, 0xff, 0x7f], nan.length - 4);
    expect(problem(nan)).toMatch(/not finite/);
  });
});

describe('reciprocal rank fusion', () => {
  test('a title high in both rankings beats one at the top of only one', () => {
    expect(
      fuseRankings([
        ['A', 'B', 'C'],
        ['B', 'D', 'A'],
      ]),
    ).toEqual(['B', 'A', 'D', 'C']);
    expect(fuseRankings([['X'], []])).toEqual(['X']);
    expect(
      fuseRankings([
        ['P', 'Q'],
        ['Q', 'P'],
      ]),
    ).toEqual(['P', 'Q']); // a tie: the first ranking wins
  });
});

describe('embedding adapters', () => {
  let mock: Awaited<ReturnType<typeof startMockLlm>>;
  beforeAll(async () => {
    mock = await startMockLlm({ port: 0 });
  });
  afterAll(() => mock.close());
  beforeEach(() => mock.reset());
  const signal = new AbortController().signal;

  test('OpenAI-compatible: one request per batch, the key as a bearer token, vectors as the mock computes them', async () => {
    const model = createEmbeddingModel('openai-chat', { baseUrl: mock.url, apiKey: 'sk-test', model: 'mock-embed', fetch });
    const vectors = await model.embed(['garden tomatoes', 'tomatoes'], signal);
    expect(vectors.map((v) => [...v].map((x) => Math.round(x * 1e5)))).toEqual(
      [hashedEmbedding('garden tomatoes', 64), hashedEmbedding('tomatoes', 64)].map((v: number[]) => v.map((x) => Math.round(x * 1e5))),
    );
    expect(mock.requests).toHaveLength(1);
    expect(mock.requests[0].body).toEqual({ model: 'mock-embed', input: ['garden tomatoes', 'tomatoes'] });
    expect(mock.requests[0].headers.authorization).toBe('Bearer sk-test');
  });

  test('Ollama and Gemini request bodies and replies', async () => {
    const seen: { url: string; body: unknown; headers: unknown }[] = [];
    const fake = (reply: unknown) => async (url: string, init: RequestInit) => {
      seen.push({ url, body: JSON.parse(String(init.body)), headers: init.headers });
      return new Response(JSON.stringify(reply), { status: 200 });
    };
    const ollama = createEmbeddingModel('ollama', {
      baseUrl: 'http://127.0.0.1:11434/',
      model: 'nomic-embed-text',
      fetch: fake({
        embeddings: [
          [1, 0],
          [0, 1],
        ],
      }),
    });
    expect((await ollama.embed(['a', 'b'], signal)).map((v) => [...v])).toEqual([
      [1, 0],
      [0, 1],
    ]);
    expect(seen[0]).toMatchObject({ url: 'http://127.0.0.1:11434/api/embed', body: { model: 'nomic-embed-text', input: ['a', 'b'] } });
    const gemini = createEmbeddingModel('gemini', {
      baseUrl: 'https://g.example/v1beta',
      apiKey: 'g-key',
      model: 'text-embedding-004',
      fetch: fake({ embeddings: [{ values: [0.5, 0.5] }] }),
    });
    expect((await gemini.embed(['a'], signal)).map((v) => [...v])).toEqual([[0.5, 0.5]]);
    expect(seen[1]).toMatchObject({
      url: 'https://g.example/v1beta/models/text-embedding-004:batchEmbedContents',
      body: { requests: [{ model: 'models/text-embedding-004', content: { parts: [{ text: 'a' }] } }] },
      headers: { 'x-goog-api-key': 'g-key' },
    });
    expect(() => createEmbeddingModel('anthropic', { baseUrl: 'x', model: 'm', fetch })).toThrow(/no embeddings endpoint/);
  });

  test('errors are classified as for chat: 429 retryable with its retry-after, 500 retryable, a reply of the wrong shape is not', async () => {
    const model = createEmbeddingModel('openai-chat', { baseUrl: mock.url, model: 'mock-embed', fetch });
    const failure = async () => {
      try {
        await model.embed(['x', 'y'], signal);
      } catch (e) {
        return e;
      }
      throw new Error('no error');
    };
    mock.queueEmbeddings([{ status: 429, headers: { 'retry-after': '3' } }, { status: 500 }]);
    const limited = await failure();
    expect(isProviderError(limited) && [limited.status, limited.retryable, limited.retryAfterMs]).toEqual([429, true, 3000]);
    expect((limited as Error).message).toMatch(/HTTP 429 .* rate-limiting/);
    const server = await failure();
    expect(isProviderError(server) && [server.status, server.retryable]).toEqual([500, true]);
    const bad = createEmbeddingModel('openai-chat', {
      baseUrl: mock.url,
      model: 'mock-embed',
      fetch: async () =>
        new Response(
          JSON.stringify({
            data: [
              { index: 0, embedding: [1, 2] },
              { index: 1, embedding: [1] },
            ],
          }),
        ),
    });
    await expect(bad.embed(['x', 'y'], signal)).rejects.toThrow(/vector 2 has 1 dimensions, the first has 2/);
    const short = createEmbeddingModel('openai-chat', {
      baseUrl: mock.url,
      model: 'mock-embed',
      fetch: async () => new Response(JSON.stringify({ data: [{ index: 0, embedding: [1, 2] }] })),
    });
    await expect(short.embed(['x', 'y'], signal)).rejects.toThrow(/1 vectors came back for 2 texts/);
  });
});

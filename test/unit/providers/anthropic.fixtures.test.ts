/*\
Replays every recorded Anthropic Messages stream through the adapter in one piece, one byte
per read, at seeded random offsets and with CRLF / CR line endings, and compares the parts
with a golden file checked by hand against the fixture. `UPDATE_GOLDEN=1` rewrites the goldens.
`.chunks.jsonl` fixtures become `event: <type>\ndata: <line>\n\n` per line (no [DONE]).
\*/
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createAnthropicModel } from '../../../src/agent/providers/anthropic';
import type { StreamPart } from '../../../src/agent/providers/types';
import { FIXTURES, GOLDEN, collect, describeReplays, fakeFetch, sseResponse, streamOf, summary, typedEventsBody } from './replay';

const DIR = 'anthropic';
const fixtures = fs
  .readdirSync(path.join(FIXTURES, DIR))
  .filter((f) => /\.(sse|chunks\.jsonl)$/.test(f))
  .sort();
const body = (file: string) => typedEventsBody(`${DIR}/${file}`);

function streamChunks(chunks: Uint8Array[]): Promise<StreamPart[]> {
  const model = createAnthropicModel({ baseUrl: 'https://api.example.com/v1', apiKey: 'k', fetch: fakeFetch(() => sseResponse(streamOf(chunks))) });
  return collect(model.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal));
}

it('finds the six Anthropic fixtures', () => {
  expect(fixtures.map((f) => f.slice(0, 4))).toEqual(['an01', 'an02', 'an03', 'an05', 'an07', 'an08']);
});

const replay = describeReplays({
  fixtures,
  body,
  streamChunks,
  goldenPath: (file) => path.join(GOLDEN, DIR, `${file.replace(/\.(sse|chunks\.jsonl)$/, '')}.json`),
  lineEndings: ['\r\n', '\r'],
  twoPieceBelow: 3000,
});

describe('explicit checks per fixture', () => {
  const parts = (name: string) => replay(fixtures.find((f) => f.startsWith(name))!, 'whole');
  const run = async (name: string) => summary(await parts(name));

  it('an01: text around a ping; usage from message_start and message_delta; end_turn -> stop', async () => {
    const s = await run('an01');
    expect(s.text).toBe("Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?");
    expect(s.usage).toEqual({ type: 'usage', inputTokens: 12, outputTokens: 30 });
    expect(s.last).toEqual({ type: 'finish', reason: 'stop', raw: 'end_turn' });
  });

  it('an02: text, then a get_weather call from fragments (the empty "" fragment is skipped)', async () => {
    const p = await parts('an02');
    const s = summary(p);
    expect(s.text).toBe("I'll check the current weather in Paris for you.");
    expect(p.filter((x) => x.type === 'tool-call-start')).toEqual([
      { type: 'tool-call-start', index: 0, id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather' },
    ]);
    expect(p.filter((x) => x.type === 'tool-call-delta').map((x) => x.type === 'tool-call-delta' && x.argsText)).toEqual(['{"locati', 'on": "P', 'ar', 'is"}']);
    expect(s.calls).toEqual([{ type: 'tool-call', index: 0, id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', args: { location: 'Paris' } }]);
    expect(s.usage).toEqual({ type: 'usage', inputTokens: 377, outputTokens: 65 });
    expect(s.last).toEqual({ type: 'finish', reason: 'tool-calls', raw: 'tool_use' });
  });

  it('an03: padded JSON; reasoning first, then text; the signature is not shown', async () => {
    const p = await parts('an03');
    const s = summary(p);
    const firstText = p.findIndex((x) => x.type === 'text-delta');
    const lastReasoning = p.map((x) => x.type).lastIndexOf('reasoning-delta');
    expect(lastReasoning).toBeLessThan(firstText);
    expect(s.reasoning.startsWith('This is a straightforward question about pedestrian safety. I')).toBe(true);
    expect(s.text.endsWith('Always prioritize safety over speed when crossing streets.')).toBe(true);
    expect(s.reasoning).not.toContain('sig');
    expect(s.usage).toEqual({ type: 'usage', inputTokens: 43, outputTokens: 282 });
    expect(s.last).toEqual({ type: 'finish', reason: 'stop', raw: 'end_turn' });
  });

  it('an05: a tool call cut off by max_tokens is invalid, and the reply finishes with length', async () => {
    const s = await run('an05');
    expect(s.text).toBe(
      "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now.",
    );
    expect(s.calls).toEqual([]);
    expect(s.invalid).toHaveLength(1);
    expect(s.invalid[0]).toMatchObject({
      type: 'tool-call-invalid',
      index: 0,
      id: 'toolu_01EKqbqmZrGRXy18eN7m9kvY',
      name: 'make_file',
      reason: expect.stringContaining('cut off by the token limit'),
    });
    const invalid = s.invalid[0] as Extract<StreamPart, { type: 'tool-call-invalid' }>;
    expect(invalid.argsText.startsWith('{"filename": "taxes.txt", "lines_of_text": [\n"# COMPREHENSIVE TAX GUIDE')).toBe(true);
    expect(invalid.argsText.endsWith('\n"Filing taxes')).toBe(true);
    expect(s.usage).toEqual({ type: 'usage', inputTokens: 450, outputTokens: 124 });
    expect(s.last).toEqual({ type: 'finish', reason: 'length', raw: 'max_tokens' });
  });

  it('an07: a repeated message_start with the same id is tolerated', async () => {
    const s = await run('an07');
    expect(s.text).toBe('Hello, World!');
    expect(s.usage).toEqual({ type: 'usage', inputTokens: 17, outputTokens: 227 });
    expect(s.last).toEqual({ type: 'finish', reason: 'stop', raw: 'end_turn' });
  });

  it('an08: a spliced message_start with another id ends the reply in an error; nothing of the second reply leaks', async () => {
    const p = await parts('an08');
    const s = summary(p);
    expect(s.reasoning).toBe('I will call the tool.');
    expect(s.calls).toEqual([]);
    expect(p.some((x) => x.type === 'finish')).toBe(false);
    expect(JSON.stringify(p)).not.toContain('Sparkle Day');
    expect(s.last).toMatchObject({ type: 'error', error: { kind: 'invalid-response', message: expect.stringContaining('msg_second') } });
  });
});

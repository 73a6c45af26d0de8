/*\
HTTP and network failures -> ProviderError: messages, retryability, quota, retry delays.
Error bodies are the recorded ones from test/fixtures/llm/errors where we have them.
\*/
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { ProviderError } from '../../../src/agent/providers/errors';
import {
  errorFromFetchFailure,
  errorFromHttp,
  errorFromResponse,
  errorFromStreamPayload,
  retryAfterFromHeaders,
  type ErrorContext,
} from '../../../src/agent/providers/http-errors';
import { FIXTURES } from './replay';

const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, 'errors', name), 'utf8');
const OPENAI: ErrorContext = { baseUrl: 'https://api.openai.com/v1', model: 'gpt-5.2-proo' };
const err = (status: number, body: unknown, headers: Record<string, string> = {}, ctx: ErrorContext = OPENAI) =>
  errorFromHttp(status, typeof body === 'string' ? body : JSON.stringify(body), new Headers(headers), ctx);

describe('errorFromHttp with recorded bodies', () => {
  it('er01: OpenAI 404 model_not_found says the model is unknown', async () => {
    const e = await errorFromResponse(new Response(fixture('er01-openai-404-model-not-found.json'), { status: 404 }), OPENAI);
    expect(e).toBeInstanceOf(ProviderError);
    expect(e).toMatchObject({ kind: 'http', status: 404, code: 'model_not_found', retryable: false, quota: false });
    expect(e.message).toBe(
      'HTTP 404 from https://api.openai.com/v1: The model `gpt-5.2-proo` does not exist or you do not have access to it. ' +
        'The model "gpt-5.2-proo" is unknown to this provider; check the model name in the TiddlyAgent settings.',
    );
  });

  it('er02: Anthropic 404 not_found_error about a model', () => {
    const e = err(
      404,
      fixture('er02-anthropic-404-not-found-with-request-id.json'),
      {},
      { baseUrl: 'https://api.anthropic.com/v1', model: 'claude-sonet-4-5' },
    );
    expect(e).toMatchObject({ status: 404, code: 'not_found_error', retryable: false });
    expect(e.message).toContain('model: claude-sonet-4-5.');
    expect(e.message).toContain('The model "claude-sonet-4-5" is unknown');
  });

  it('er04: Gemini 429 per-minute quota is a rate limit, retried after RetryInfo.retryDelay', () => {
    const e = err(429, fixture('er04-gemini-429-retryinfo.json'), {}, { baseUrl: 'https://generativelanguage.googleapis.com/v1beta' });
    expect(e).toMatchObject({ status: 429, code: 'RESOURCE_EXHAUSTED', retryable: true, quota: false, retryAfterMs: 34_400 });
    expect(e.message).toContain('You exceeded your current quota, please check your plan.');
  });

  it('er04 variant: a Gemini per-day quota is not retried', () => {
    const body = JSON.parse(fixture('er04-gemini-429-retryinfo.json')) as { error: { details: { violations?: { quotaId: string }[] }[] } };
    body.error.details[0]!.violations![0]!.quotaId = 'GenerateRequestsPerDayPerProjectPerModel-FreeTier';
    expect(err(429, body)).toMatchObject({ quota: true, retryable: false });
  });

  it('er05: Gemini 400 API_KEY_INVALID points at the API key', () => {
    const e = err(400, fixture('er05-gemini-400-api-key-invalid.json'), {}, { baseUrl: 'https://generativelanguage.googleapis.com/v1beta' });
    expect(e).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT', retryable: false });
    expect(e.message).toBe(
      'HTTP 400 from https://generativelanguage.googleapis.com/v1beta: API key not valid. Please pass a valid API key. Check the API key for this provider in the TiddlyAgent settings.',
    );
  });
});

describe('errorFromHttp classification', () => {
  it('401 names the server and points at the key', () => {
    const e = err(401, {
      error: {
        message: 'Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      },
    });
    expect(e.message).toMatch(
      /^HTTP 401 from https:\/\/api\.openai\.com\/v1: Incorrect API key provided: sk-abc\. .* Check the API key for this provider in the TiddlyAgent settings\.$/,
    );
    expect(e).toMatchObject({ code: 'invalid_api_key', retryable: false });
  });

  it('a 404 that is not about a model points at the base URL', () => {
    expect(err(404, '404 page not found').message).toBe(
      'HTTP 404 from https://api.openai.com/v1: 404 page not found. Check the base URL in the TiddlyAgent settings (OpenAI-compatible servers usually end in /v1).',
    );
  });

  it.each([408, 409, 429, 500, 502, 503, 504, 529])('%i is retryable', (status) => {
    expect(err(status, '')).toMatchObject({ retryable: true, quota: false });
  });

  it.each([400, 401, 403, 404, 413, 422])('%i is not retryable', (status) => {
    expect(err(status, '').retryable).toBe(false);
  });

  it('x-should-retry overrides the status either way', () => {
    expect(err(500, '', { 'x-should-retry': 'false' }).retryable).toBe(false);
    expect(err(400, '', { 'x-should-retry': 'true' }).retryable).toBe(true);
  });

  it('Anthropic 529 overloaded_error', () => {
    const e = err(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, {}, { baseUrl: 'https://api.anthropic.com/v1' });
    expect(e).toMatchObject({ status: 529, code: 'overloaded_error', retryable: true });
    expect(e.message).toBe('HTTP 529 from https://api.anthropic.com/v1: Overloaded. The provider is overloaded; try again later.');
  });

  it('500 with an HTML body shows a short plain excerpt', () => {
    const e = err(500, '<html><head><title>500 Internal Server Error</title></head><body><h1>Oops</h1></body></html>');
    expect(e.message).toBe('HTTP 500 from https://api.openai.com/v1: 500 Internal Server Error Oops. The provider had a server error; try again later.');
    expect(e.retryable).toBe(true);
  });

  it('an empty body still gives a message', () => {
    expect(err(503, '').message).toBe(
      'HTTP 503 from https://api.openai.com/v1: request failed with status 503. The provider had a server error; try again later.',
    );
  });

  describe('quota and billing are never retried', () => {
    it('OpenAI 429 insufficient_quota, even with retry-after', () => {
      const e = err(
        429,
        {
          error: {
            message: 'You exceeded your current quota, please check your plan and billing details.',
            type: 'insufficient_quota',
            param: null,
            code: 'insufficient_quota',
          },
        },
        { 'retry-after': '1' },
      );
      expect(e).toMatchObject({ status: 429, code: 'insufficient_quota', quota: true, retryable: false });
      expect(e.message).toContain('The quota or credit for this account is used up');
    });

    it('Anthropic enforced_spend_limit_reached in error.details', () => {
      const body = {
        type: 'error',
        error: { type: 'rate_limit_error', message: 'Spend limit reached.', details: { error_code: 'enforced_spend_limit_reached' } },
      };
      expect(err(429, body)).toMatchObject({ quota: true, retryable: false });
    });

    it('Anthropic billing_error', () => {
      expect(err(400, { type: 'error', error: { type: 'billing_error', message: 'Your credit balance is too low.' } })).toMatchObject({
        quota: true,
        code: 'billing_error',
      });
    });

    it('any 402 (OpenRouter)', () => {
      const e = err(402, { error: { code: 402, message: 'Insufficient credits' } }, {}, { baseUrl: 'https://openrouter.ai/api/v1' });
      expect(e).toMatchObject({ status: 402, quota: true, retryable: false });
    });
  });

  it('OpenRouter relays the upstream message from metadata.raw', () => {
    const body = {
      error: {
        code: 429,
        message: 'Provider returned error',
        metadata: { raw: 'google/gemini is temporarily rate-limited upstream', provider_name: 'Google AI Studio' },
      },
    };
    const e = err(429, body, {}, { baseUrl: 'https://openrouter.ai/api/v1' });
    expect(e.message).toContain('Provider returned error (Google AI Studio: google/gemini is temporarily rate-limited upstream).');
    expect(e.retryable).toBe(true);
  });
});

describe('retry delays', () => {
  const h = (o: Record<string, string>) => new Headers(o);
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('retry-after-ms (float) wins over retry-after', () => {
    expect(retryAfterFromHeaders(h({ 'retry-after-ms': '1500.4', 'retry-after': '9' }), now)).toBe(1500);
  });
  it('retry-after in seconds', () => {
    expect(retryAfterFromHeaders(h({ 'retry-after': '3' }), now)).toBe(3000);
    expect(retryAfterFromHeaders(h({ 'retry-after': '0.5' }), now)).toBe(500);
  });
  it('retry-after as an HTTP date', () => {
    expect(retryAfterFromHeaders(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:12 GMT' }), now)).toBe(12_000);
  });
  it('keeps a long wait as asked (the retry policy then gives up instead of retrying early)', () => {
    expect(retryAfterFromHeaders(h({ 'retry-after': '3600' }), now)).toBe(3_600_000);
  });
  it('ignores negative, past and unparsable values', () => {
    expect(retryAfterFromHeaders(h({ 'retry-after-ms': '-5', 'retry-after': '2' }), now)).toBe(2000);
    expect(retryAfterFromHeaders(h({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }), now)).toBeUndefined();
    expect(retryAfterFromHeaders(h({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterFromHeaders(h({ 'retry-after-ms': 'NaN' }), now)).toBeUndefined();
    expect(retryAfterFromHeaders(h({}), now)).toBeUndefined();
  });
  it('headers win over the Gemini body hint; the body hint is used without headers', () => {
    expect(err(429, fixture('er04-gemini-429-retryinfo.json'), { 'retry-after': '2' }).retryAfterMs).toBe(2000);
    expect(err(429, fixture('er04-gemini-429-retryinfo.json')).retryAfterMs).toBe(34_400);
  });
  it('reads them off a real Response', async () => {
    const e = await errorFromResponse(
      new Response('{"error":{"message":"Rate limit reached","type":"requests"}}', { status: 429, headers: { 'retry-after-ms': '250' } }),
      OPENAI,
    );
    expect(e).toMatchObject({ retryable: true, retryAfterMs: 250 });
  });
});

describe('errorFromStreamPayload', () => {
  const ctx = { baseUrl: 'https://api.openai.com/v1' };
  it('OpenAI server_error inside a 200 stream is retryable', () => {
    const e = errorFromStreamPayload(
      { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } },
      ctx,
    );
    expect(e).toMatchObject({ kind: 'stream', code: 'server_error', retryable: true });
    expect(e.message).toBe('Error from https://api.openai.com/v1 during the reply: The server had an error while processing your request.');
  });
  it('insufficient_quota inside a stream is quota', () => {
    expect(errorFromStreamPayload({ error: { type: 'insufficient_quota', code: 'insufficient_quota', message: 'quota' } }, ctx)).toMatchObject({
      quota: true,
      retryable: false,
    });
  });
  it('non-JSON error data is shown as is', () => {
    expect(errorFromStreamPayload('upstream went away', ctx).message).toBe('Error from https://api.openai.com/v1 during the reply: upstream went away.');
  });
});

describe('errorFromFetchFailure', () => {
  const ctx = { baseUrl: 'http://localhost:11434/v1' };

  it("Node's `fetch failed` with ECONNREFUSED in cause", () => {
    const e = errorFromFetchFailure(
      new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' }) }),
      ctx,
    );
    expect(e).toMatchObject({ kind: 'network', code: 'ECONNREFUSED', retryable: true });
    expect(e.message).toBe('Could not connect to http://localhost:11434/v1 (connection refused). Is the server running? In a browser this can also be CORS.');
  });

  it('the code hidden in an AggregateError (IPv4 and IPv6 both refused)', () => {
    const agg = new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' }), Object.assign(new Error('b'), { code: 'ECONNREFUSED' })], 'x');
    expect(errorFromFetchFailure(new TypeError('fetch failed', { cause: agg }), ctx).message).toContain('(connection refused)');
  });

  it("the browser's `Failed to fetch` (no detail available)", () => {
    const e = errorFromFetchFailure(new TypeError('Failed to fetch'), ctx);
    expect(e).toMatchObject({ kind: 'network', retryable: true });
    expect(e.message).toBe('Could not connect to http://localhost:11434/v1 (Failed to fetch). Is the server running? In a browser this can also be CORS.');
  });

  it('DNS failure', () => {
    expect(errorFromFetchFailure(new TypeError('fetch failed', { cause: { code: 'ENOTFOUND' } }), ctx).message).toContain('(host not found)');
  });

  it('an AbortError is `aborted`, not retryable', () => {
    expect(errorFromFetchFailure(new DOMException('This operation was aborted', 'AbortError'), ctx)).toMatchObject({ kind: 'aborted', retryable: false });
  });

  it('a ProviderError passes through', () => {
    const pe = new ProviderError({ kind: 'timeout', message: 't' });
    expect(errorFromFetchFailure(pe, ctx)).toBe(pe);
  });

  it('a real refused connection from Node fetch', async () => {
    // A port that was just free: nothing listens there any more.
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const thrown = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`).catch((e: unknown) => e);
    const e = errorFromFetchFailure(thrown, { baseUrl: `http://127.0.0.1:${port}/v1` });
    expect(e).toMatchObject({ kind: 'network', code: 'ECONNREFUSED', retryable: true });
    expect(e.message).toContain(`Could not connect to http://127.0.0.1:${port}/v1 (connection refused)`);
  });

  it('without a code, the innermost cause message is shown', async () => {
    // Port 1 is on the fetch standard's list of blocked ports.
    const thrown = await fetch('http://127.0.0.1:1/').catch((e: unknown) => e);
    expect(errorFromFetchFailure(thrown, ctx).message).toContain('(bad port)');
  });
});

#!/usr/bin/env node
/*
TiddlyAgent mock LLM: a SCRIPTED TEST DOUBLE that speaks the OpenAI chat-completions protocol.
It is not a real model and never the product default; it exists so the tests (and an offline
demo) can exercise streaming, tool calls, errors, cut-offs and Stop over real HTTP.

  const { startMockLlm, defaultReply } = require('./scripts/mock-llm.cjs');
  const mock = await startMockLlm({ port: 0 });   // mock.url === 'http://127.0.0.1:PORT/v1'
  mock.queue({ text: 'hello' });                  // next chat request streams "hello"
  await mock.close();

CLI: node scripts/mock-llm.cjs [--port 8765] [--host 127.0.0.1]   (env MOCK_LLM_PORT, MOCK_LLM_DELAY_MS)
Open by default; with `apiKey` (env MOCK_LLM_API_KEY) every /v1 request without the header
`Authorization: Bearer <apiKey>` gets OpenAI's 401 invalid_api_key answer (the settings'
connection test tells a wrong key from the rest this way).

How a chat request is answered, first match wins:
  0. a chat-title request (TiddlyAgent's side request after a chat's first turn: its system
     message starts with "Name this chat:", or "为这段对话命名：" in zh-Hans) takes the next
     script of its own FIFO queue (queueTitles() in-process, or POST /__mock/title-queue; same
     script format, e.g. { text: 'A hostile $:/title' } or { status: 500 }), else answers
     mockTitle(userText, instruction) in the language asked for (the user's message's, else
     the instruction's): "Chat about" and the first three words of an English message; the
     subject of a Chinese one (its first clause without greeting or "please", at most eight
     characters). It never takes a script from the chat queue below, so queued turns stay in step;
  1. the next script in the FIFO queue (queue() in-process, or POST /__mock/queue);
  1b. an "Ask AI" edit request (system message starts with "Edit request:") -> mockEdit():
     the text plainly changed as the task says, marked as the mock's;
  2. the demo's guided tour, when the last user message is `mock:tour` or "Show me what you
     can do" (see THE TOUR below);
  3. a `mock:...` directive in the last user message (see DIRECTIVES below), unless the
     conversation ends with a tool result (else `mock:tool=` would call the tool forever);
  4. an unknown `model` -> 404 model_not_found, exactly like OpenAI;
  5. the default reply, defaultReply(userText), or toolResultReply(result) after a tool result.
The tour is one tool turn in three requests, each step read from the conversation itself (the
mock keeps no state between requests): after the user's message it calls `wiki-search` for
"Demo notes"; after the search result it calls `wiki-edit` on the tiddler "Demo notes" with
the `modified` the result shows (a write, so the user gets an approval card); after the edit's
result it replies with what the user just saw (the card, the diff, Roll back), or, when the
note was not found or the edit did not happen, says so.
A queued script may carry `hold`, a Promise (in-process queue() only): its reply starts once
the promise settles, so a test can act between the request's arrival and the model's answer.

A chat script (queue() or POST /__mock/queue) is an object; every field is optional:
  text | chunks: ['a', 'b', { hex: 'c328' }]  the reply, as words or as these deltas ({ hex }: raw
                                           bytes inside the delta's JSON string, e.g. invalid UTF-8)
  reasoning, toolCalls: [{ name, arguments, id? }], finishReason, usage   what the reply holds
  delayMs                                  the wait after each chunk (default: the server's delayMs)
  status (>= 400), headers, body           an error answer; headers also ride on a 200
  json: 'completion' | object              one JSON body although a stream was asked for
  cutAfter: N                              destroy the socket before text chunk N (0: after the role chunk)
  cutMidLine: true                         with cutAfter: first write half of chunk N's line
  stallAfter: N                            stop writing before text chunk N, until the client leaves
  pauseAt: N, resume: Promise              in-process only: stop writing before text chunk N until
                                           `resume` settles (a test acts while a reply is half done);
                                           or lists of both, one pause each ([N1, N2], [p1, p2])
  errorInStream: 'message'                 an OpenAI error object after the text, no [DONE]
  inject: { N: 'raw text' }                written verbatim before text chunk N ('data: {oops\n\n')
  dripBytes: N                             every write goes out in pieces of N bytes, a delay after each
  raw: ['data: [DONE]\n\n', { hex }], end: 'close' | 'cut' | 'stall'
                                           a 200 whose body is exactly these pieces, then that end
  reset: true                              destroy the connection before any response
  hang: true                               never answer (not even headers), until the client leaves
  fixture: 'file.sse' | 'file.chunks.jsonl' | 'file.json'   a recorded reply from test/fixtures/llm

Embeddings (POST /v1/embeddings, OpenAI's shape): a deterministic hashed bag of words, each
word of the input hashed into one of `embeddingDims` (default 64) buckets, the vector
normalized: texts that share words are close, texts that share none are orthogonal. It is a
test double for the semantic index, not a language model. Failures are scripted per request
through their own FIFO queue (queueEmbeddings() in-process, or POST /__mock/embeddings-queue):
  { status: 500 } / { status: 429, headers: { 'retry-after': '1' } }   an error reply
  { dims: 3 }                                                       vectors of another size
  { delayMs: 50 }                                                   a slow reply
Only node:http / fs / path are used so this file runs anywhere Node 20 runs, without installing.
*/
'use strict';
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');

const MOCK_NOTICE = 'scripted test double, not a real model';
const DEFAULT_FIXTURES = path.resolve(__dirname, '..', 'test', 'fixtures', 'llm');
const QUOTE_LIMIT = 200;

// Collapse whitespace so a multi-line message cannot break the //italic// wikitext run.
function quote(text) {
  const flat = String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, QUOTE_LIMIT);
  return flat ? `//${flat}//` : '//(empty message)//';
}
const FOOTER = '\n\nSee [[Welcome to TiddlyAgent]] to connect a real provider.';

/** The exact default reply (wikitext), exported so tests can compute the expected text. */
function defaultReply(userText) {
  return `''Mock reply'' from the offline test model (not a real AI). You wrote: ${quote(userText)}${FOOTER}`;
}
/** The reply to a request whose last message is a tool result. */
/** How a chat-title request's instruction starts, per shipped language (Prompt/Words/titleRequest). */
const TITLE_REQUESTS = { en: 'Name this chat:', zh: '为这段对话命名：' };
/** The language of a chat-title request's instruction, or undefined when the text is no title request. */
function titleRequestLanguage(instruction) {
  return Object.keys(TITLE_REQUESTS).find((lang) => String(instruction ?? '').startsWith(TITLE_REQUESTS[lang]));
}
// The opening words of a Chinese message that say nothing of its subject (greetings, "please help me").
const CHINESE_OPENING = /^(?:你好|您好|嗨|哈喽|请问|请|麻烦你|麻烦|帮我|帮忙|能不能|可以|我想)+/;
/**
 * The mock's default answer to a chat-title request, in the language asked for: the user's
 * message's (Chinese when it holds Han characters), else the instruction's. English: "Chat
 * about" and the first three words; Chinese: the message's first clause without opening
 * courtesies, at most eight characters (a noun phrase, never "Chat about").
 */
function mockTitle(userText, instruction) {
  const text = String(userText ?? '');
  const chinese = /\p{Script=Han}/u.test(text) || (!/[A-Za-z]/.test(text) && titleRequestLanguage(instruction) === 'zh');
  if (chinese) {
    const clause = text
      .split(/[^\p{L}\p{N}]+/u)
      .map((part) => part.replace(CHINESE_OPENING, ''))
      .find(Boolean);
    return clause ? [...clause].slice(0, 8).join('') : '新对话';
  }
  const words = text
    .replace(/[^\p{L}\p{N}\s]+/gu, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 3);
  return words.length ? `Chat about ${words.join(' ')}` : 'Chat about nothing';
}

/**
 * The mock's answer to "Ask AI" in the editor (an edit request: its system prompt names the
 * task, the text comes in <text>…</text>): a plain, visible change, marked as the mock's.
 */
function mockEdit(system, userText) {
  const text = (/<text>\n([\s\S]*?)\n<\/text>/.exec(userText) || [])[1] || '';
  if (/^Continue the text/m.test(system)) return 'And then the offline mock continued the thought (not a real AI).';
  if (/^Replace the text with a short summary/m.test(system)) return `In short (mock summary): ${text.split(/(?<=[.!?])\s/)[0] || text}`;
  if (/^Correct spelling/m.test(system))
    return text
      .replace(/\bteh\b/g, 'the')
      .replace(/\bi\b/g, 'I')
      .replace(/ {2,}/g, ' ');
  const custom = /^The user's instruction: (.*)$/m.exec(system);
  if (custom) return `${text} (changed by the offline mock as asked: ${custom[1]})`;
  return `${text.trim()} (rewritten by the offline mock, not a real AI)`;
}

function toolResultReply(resultText) {
  return `''Mock reply'' from the offline test model (not a real AI). The tool returned: ${quote(resultText)}${FOOTER}`;
}

// ---- OpenAI-shaped error bodies (the product's error classifier is tested against these) ----
const errorBody = (message, type, code, param = null) => ({ error: { message, type, param, code } });
const modelNotFound = (model) =>
  errorBody(`The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');

function genericErrorBody(status) {
  if (status === 401)
    return errorBody(
      'Incorrect API key provided (mock). You can find your API key at https://platform.openai.com/account/api-keys.',
      'invalid_request_error',
      'invalid_api_key',
    );
  if (status === 429) return errorBody('Rate limit reached (mock). Please try again in 1s.', 'requests', 'rate_limit_exceeded');
  if (status === 529) return { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
  if (status >= 500) return errorBody('The server had an error while processing your request. Sorry about that! (mock)', 'server_error', null);
  return errorBody(`Mock error with status ${status}.`, 'invalid_request_error', null);
}

// ---- Directives: `mock:<name>[=<value>]` anywhere in the last user message's text ----
const SLOW_TEXT =
  "''Mock slow reply'' from the offline test model (not a real AI), one word every 50 ms so Stop can be tested:" +
  Array.from({ length: 200 }, (_, i) => ` word${i + 1}`).join('');

function directiveScript(name, value, restOfLine, model) {
  switch (name) {
    case '401':
      return { status: 401, body: genericErrorBody(401) };
    case '404':
      return { status: 404, body: modelNotFound(model) };
    case '429':
      return { status: 429, headers: { 'retry-after': '1' }, body: genericErrorBody(429) };
    case 'quota':
      return {
        status: 429,
        body: errorBody('You exceeded your current quota, please check your plan and billing details. (mock)', 'insufficient_quota', 'insufficient_quota'),
      };
    case '500':
      return { status: 500, body: genericErrorBody(500) };
    case '529':
      return { status: 529, body: genericErrorBody(529) };
    case 'damaged':
      return {
        text: "''Mock reply'' with a chunk of its stream that cannot be read, then more words.",
        inject: { 3: 'data: {"choices":[{"delta":{"content":"lost wor\n\n' },
      };
    case 'cut':
      return { text: "''Mock reply'' that the mock server cuts off mid-stream on purpose, without the final marker.", cutAfter: 4 };
    case 'stall':
      return { text: "''Mock reply'' that stalls after a few words until you press Stop.", stallAfter: 3 };
    case 'json':
      return { json: 'completion', text: "''Mock reply'' sent as one JSON object although a stream was requested (not a real AI)." };
    case 'json-error':
      return { json: errorBody('This endpoint returns JSON, not a stream', 'invalid_request_error', null) };
    case 'error-in-stream':
      return { text: "''Mock reply'' that fails part-way:", errorInStream: 'Mock in-stream error (scripted test double).' };
    case 'slow':
      return { text: SLOW_TEXT, delayMs: 50 };
    case 'fixture':
      return value ? { fixture: value } : null;
    case 'tool': {
      if (!value) return null;
      const brace = value.indexOf('{'); // `mock:tool=name{"a":1}` written without a space
      if (brace > 0) {
        restOfLine = value.slice(brace) + restOfLine;
        value = value.slice(0, brace);
      }
      // Arguments: the JSON object on the rest of the line; invalid JSON is passed through as a
      // raw string so the client's own argument validation can be exercised too.
      const raw = restOfLine.trim();
      let args = {};
      if (raw) {
        try {
          args = JSON.parse(raw);
        } catch {
          args = raw;
        }
      }
      return { toolCalls: [{ name: value, arguments: args }] };
    }
    default:
      return null; // unknown `mock:` tokens are ordinary text
  }
}

function findDirective(text, model) {
  for (const m of text.matchAll(/(?:^|[^\w])mock:([a-z0-9][\w-]*)(?:=(\S+))?(?=([^\n]*))/gi)) {
    const script = directiveScript(m[1].toLowerCase(), m[2], m[3] ?? '', model);
    if (script) return { name: m[1].toLowerCase(), script };
  }
  return null;
}

// ---- THE TOUR: the offline demo's scripted tool turn (search, an approved edit, a reply) ----
const TOUR_REQUEST = /(?:^|[^\w])mock:tour\b|^\s*show me what you can do\W*$/i;
const TOUR_NOTE = 'Demo notes';
const TOUR_FIND = 'Status: waiting for the tour.';
const TOUR_REPLACE = 'Status: changed by the demo agent during the tour. Roll back the turn to bring back the line it replaced.';
const TOUR_NOTICE = "''Guided tour'' (scripted mock reply, not a real AI).";
const TOUR_DONE = `${TOUR_NOTICE} I searched the wiki with \`wiki-search\` (reading runs by itself), found [[${TOUR_NOTE}]] and asked to change one line of it with \`wiki-edit\`. A write waits for you: the card showed what would change, and nothing landed until you allowed it.

* ''1 tiddler changed'', under this reply, opens the diff: the words taken out and the words put in.
* ''Roll back'', next to it, puts [[${TOUR_NOTE}]] back exactly as it was.
${FOOTER}`;

/** The tour's next step, or null when the last user message does not ask for the tour. */
function tourScript(messages, userText) {
  if (!TOUR_REQUEST.test(userText)) return null;
  let lastUser = messages.length - 1;
  while (lastUser >= 0 && messages[lastUser]?.role !== 'user') lastUser--;
  const since = messages.slice(lastUser + 1).filter((m) => m && m.role !== 'system');
  const last = since[since.length - 1];
  if (!last) return { toolCalls: [{ name: 'wiki-search', arguments: { query: TOUR_NOTE } }] };
  if (last.role !== 'tool') return null;
  const call = [...since].reverse().find((m) => m.role === 'assistant' && Array.isArray(m.tool_calls))?.tool_calls?.[0];
  const result = contentText(last.content);
  if (call?.function?.name === 'wiki-search') {
    const hit = result.match(/<tiddler-data\b[^>]*\btitle="Demo notes"[^>]*>/)?.[0];
    const modified = hit?.match(/\bmodified="(\d*)"/)?.[1];
    if (modified === undefined)
      return {
        text: `${TOUR_NOTICE} The search did not find the tiddler [[${TOUR_NOTE}]], so there is nothing to change. Restore it from the shipped demo (delete your copy in \`tiddlers/\`) and try again.${FOOTER}`,
      };
    return { toolCalls: [{ name: 'wiki-edit', arguments: { title: TOUR_NOTE, modified, edits: [{ find: TOUR_FIND, replace: TOUR_REPLACE }] } }] };
  }
  if (call?.function?.name === 'wiki-edit') {
    if (result.startsWith('Edited')) return { text: TOUR_DONE };
    return { text: `${TOUR_NOTICE} The edit did not happen. The tool said: ${quote(result)}${FOOTER}` };
  }
  return null;
}

// ---- Helpers ----
function contentText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .filter((p) => p && p.type === 'text')
      .map((p) => String(p.text ?? ''))
      .join('\n');
  return '';
}
// Word-sized deltas whose concatenation is exactly the text.
const words = (text) => (text ? text.match(/\s*\S+\s*/g) || [text] : []);
const estimateTokens = (s) => Math.max(1, Math.ceil(String(s).length / 4));

/** A piece of a raw body: a string, or { hex } for bytes that need not be UTF-8. */
function bytesOf(piece) {
  return piece && typeof piece === 'object' ? Buffer.from(String(piece.hex).replace(/\s+/g, ''), 'hex') : Buffer.from(String(piece));
}

// A delta's `{ hex }` content goes into the JSON string as those very bytes.
const BYTES_MARK = '\u0000mock-bytes\u0000';

/** One SSE `data:` event as bytes: `[DONE]`-like strings verbatim, objects as JSON. */
function line(obj) {
  if (typeof obj === 'string') return Buffer.from(`data: ${obj}\n\n`);
  const content = obj?.choices?.[0]?.delta?.content;
  if (!content || typeof content !== 'object') return Buffer.from(`data: ${JSON.stringify(obj)}\n\n`);
  const json = JSON.stringify(obj, (_key, v) => (v === content ? BYTES_MARK : v));
  const [before, after] = json.split(JSON.stringify(BYTES_MARK).slice(1, -1));
  return Buffer.concat([Buffer.from(`data: ${before}`), bytesOf(content), Buffer.from(`${after}\n\n`)]);
}

function splitInto(str, n) {
  const parts = [];
  const size = Math.ceil(str.length / n);
  for (let i = 0; i < str.length; i += size) parts.push(str.slice(i, i + size));
  return parts;
}

async function startMockLlm(options = {}) {
  const {
    port = 0,
    host = '127.0.0.1',
    delayMs = 15,
    fixturesDir = DEFAULT_FIXTURES,
    models = ['mock-model', 'mock-model-large'],
    log = false,
    apiKey,
  } = options;
  const say = typeof log === 'function' ? log : log ? (line) => console.log(`[mock-llm] ${line}`) : () => {};
  const requests = []; // live: reset() empties it in place so callers' references stay valid
  const scripts = [];
  const embeddingScripts = [];
  const titleScripts = [];
  const embeddingDims = options.embeddingDims ?? 64;
  const sleepers = new Set();
  let counter = 0; // request ids
  let callCounter = 0; // tool-call ids
  let closing = false;

  // Timers resolve early on close() so no handle keeps jest (or the CLI) alive.
  function sleep(ms) {
    if (!ms || closing) return Promise.resolve();
    return new Promise((resolve) => {
      const entry = {
        resolve,
        timer: setTimeout(() => {
          sleepers.delete(entry);
          resolve();
        }, ms),
      };
      sleepers.add(entry);
    });
  }

  /** Writes `bytes`, at once or `dripBytes` at a time with `delay` ms after each piece; stops when the client is gone. */
  async function write(res, conn, bytes, dripBytes, delay) {
    if (!dripBytes) return void (conn.done || res.destroyed || res.write(bytes));
    for (let i = 0; i < bytes.length && !conn.done && !res.destroyed; i += dripBytes) {
      res.write(bytes.subarray(i, i + dripBytes));
      await sleep(delay);
    }
  }

  function baseHeaders(extra) {
    return {
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'retry-after, retry-after-ms',
      'x-mock-llm': MOCK_NOTICE,
      ...extra,
    };
  }
  function sendJson(res, status, obj, extra) {
    const body = JSON.stringify(obj);
    res.writeHead(status, baseHeaders({ 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...extra }));
    res.end(body);
  }

  function completionObject(id, model, script, text, usage) {
    const message = { role: 'assistant', content: text || null, refusal: null };
    if (script.reasoning) message.reasoning_content = script.reasoning;
    if (script.toolCalls?.length) message.tool_calls = normaliseToolCalls(script.toolCalls);
    return {
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: script.finishReason ?? (message.tool_calls ? 'tool_calls' : 'stop') }],
      usage,
    };
  }
  function normaliseToolCalls(calls) {
    return calls.map((c) => ({
      id: c.id ?? `call_mock_${++callCounter}`,
      type: 'function',
      function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}) },
    }));
  }

  // Plays one script onto the response. `conn` tracks the client connection.
  /** What a reply waits for before text chunk `i`: its `resume` for that `pauseAt` (one, or lists of both). */
  function pauseBefore(script, i) {
    const at = [].concat(script.pauseAt ?? []);
    const k = at.indexOf(i);
    return k >= 0 ? [].concat(script.resume ?? [])[k] : undefined;
  }

  async function play(req, res, conn, record, script) {
    // In-process only: the reply waits until the test lets it go (the script is read after, so
    // the test may still change its tool calls once it has seen the request).
    if (script.hold) await Promise.race([script.hold, conn.closed]);
    if (conn.done) return;
    const body = record.body || {};
    const model = typeof body.model === 'string' ? body.model : models[0];
    const stream = body.stream === true;
    const delay = script.delayMs ?? delayMs;
    const id = `chatcmpl-mock-${record.id}`;
    const textChunks = script.chunks ? script.chunks.map((c) => (c && typeof c === 'object' ? c : String(c))) : words(script.text ?? '');
    const fullText = textChunks.map((c) => (typeof c === 'string' ? c : '\ufffd')).join('');
    const toolCalls = script.toolCalls?.length ? normaliseToolCalls(script.toolCalls) : [];
    const usage = (() => {
      const prompt = script.usage?.prompt_tokens ?? estimateTokens(JSON.stringify(body.messages ?? ''));
      const completion =
        script.usage?.completion_tokens ??
        estimateTokens(fullText + (script.reasoning ?? '') + toolCalls.map((t) => t.function.name + t.function.arguments).join(''));
      return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
    })();
    const cut = () => {
      conn.cut = true;
      record.cut = true;
      req.socket.destroy();
    };
    const stall = () => conn.closed; // resolves only when the client goes away

    if (script.reset) return cut();
    if (script.hang) return stall();
    if (script.raw) return playRaw(res, conn, script, delay, cut, stall);
    if (script.status && script.status >= 400) {
      return sendJson(res, script.status, script.body ?? genericErrorBody(script.status), script.headers);
    }
    if (script.json !== undefined) {
      const obj = script.json === 'completion' ? completionObject(id, model, script, fullText, usage) : script.json;
      return sendJson(res, 200, obj, script.headers);
    }
    if (script.fixture) return playFixture(res, conn, script, delay);
    if (!stream) {
      // Non-streaming: interruptions still apply, otherwise one chat.completion object.
      await sleep(delay);
      if (conn.done) return;
      if (script.cutAfter != null) return cut();
      if (script.stallAfter != null) return stall();
      return sendJson(res, script.status ?? 200, completionObject(id, model, script, fullText, usage), script.headers);
    }

    const includeUsage = body.stream_options?.include_usage === true;
    const created = Math.floor(Date.now() / 1000);
    // Real OpenAI sends `usage: null` on every chunk once include_usage is on; mirror it.
    const chunk = (delta, finish = null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'fp_mock',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    });
    res.writeHead(
      script.status ?? 200,
      baseHeaders({
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        ...script.headers,
      }),
    );
    res.flushHeaders();
    // Returns false once the client is gone, so every loop below stops writing at once.
    const send = async (obj, wait = true) => {
      if (conn.done || res.destroyed) return false;
      await write(res, conn, line(obj), script.dripBytes, delay);
      if (wait) await sleep(delay);
      return !conn.done;
    };

    if (!(await send(chunk({ role: 'assistant', content: fullText || !toolCalls.length ? '' : null, refusal: null })))) return;
    for (const r of words(script.reasoning ?? '')) if (!(await send(chunk({ reasoning_content: r })))) return;
    for (let i = 0; i <= textChunks.length; i++) {
      if (script.inject?.[i] !== undefined) await write(res, conn, Buffer.from(String(script.inject[i])), script.dripBytes, delay);
      if (script.cutAfter === i) {
        // Half a line: the client has bytes of an event that never completes.
        if (script.cutMidLine) {
          const whole = line(chunk({ content: typeof textChunks[i] === 'string' ? textChunks[i] : 'more' }));
          await write(res, conn, whole.subarray(0, Math.floor(whole.length / 2)), script.dripBytes, delay);
        }
        return cut();
      }
      if (script.stallAfter === i) return stall();
      const pause = pauseBefore(script, i);
      if (pause) {
        await Promise.race([pause, conn.closed]);
        if (conn.done) return;
      }
      if (i < textChunks.length && !(await send(chunk({ content: textChunks[i] })))) return;
    }
    if (script.cutAfter != null) return cut(); // N larger than the text: cut before the finish
    if (script.stallAfter != null) return stall();
    if (script.errorInStream) {
      const message = typeof script.errorInStream === 'string' ? script.errorInStream : 'Mock in-stream error (scripted test double).';
      await send({ error: { message, type: 'server_error', param: null, code: null } }, false);
      conn.ended = true;
      return res.end(); // no [DONE]: the client must treat this as a failed stream
    }
    for (const [index, call] of toolCalls.entries()) {
      const first = { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] };
      if (!(await send(chunk(first)))) return;
      const args = call.function.arguments;
      for (const part of args ? splitInto(args, Math.min(3, args.length)) : []) {
        if (!(await send(chunk({ tool_calls: [{ index, function: { arguments: part } }] })))) return;
      }
    }
    const finish = script.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop');
    if (!(await send(chunk({}, finish)))) return;
    if (includeUsage && !(await send({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_mock', choices: [], usage }))) return;
    await send('[DONE]', false);
    conn.ended = true;
    res.end();
  }

  /** A 200 whose body is exactly the script's pieces; then it closes, is cut, or stalls. */
  async function playRaw(res, conn, script, delay, cut, stall) {
    res.writeHead(200, baseHeaders({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...script.headers }));
    res.flushHeaders();
    for (const piece of script.raw) {
      if (conn.done) return;
      await write(res, conn, bytesOf(piece), script.dripBytes, delay);
      await sleep(delay);
    }
    if (conn.done) return;
    if (script.end === 'cut') return cut();
    if (script.end === 'stall') return stall();
    conn.ended = true;
    res.end();
  }

  async function playFixture(res, conn, script, delay) {
    const root = path.resolve(fixturesDir);
    const file = path.resolve(root, script.fixture);
    if (!file.startsWith(root + path.sep) || !fs.existsSync(file)) {
      return sendJson(res, 500, errorBody(`Mock fixture not found: ${script.fixture}`, 'server_error', 'mock_fixture_missing'));
    }
    const raw = fs.readFileSync(file, 'utf8');
    let pieces;
    if (file.endsWith('.chunks.jsonl')) {
      pieces = raw
        .split(/\r?\n/)
        .filter((l) => l.trim())
        .map((l) => `data: ${l.trim()}\n\n`)
        .concat('data: [DONE]\n\n');
    } else if (file.endsWith('.sse')) {
      pieces = raw.split(/(?<=\n\n)/); // verbatim: the pieces concatenate back to the file
    } else {
      return sendJson(res, script.status ?? 200, JSON.parse(raw), script.headers);
    }
    res.writeHead(script.status ?? 200, baseHeaders({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...script.headers }));
    res.flushHeaders();
    for (const piece of pieces) {
      if (conn.done) return;
      res.write(piece);
      await sleep(delay);
    }
    if (conn.done) return;
    conn.ended = true;
    res.end();
  }

  function chooseScript(body) {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const last = messages[messages.length - 1];
    const lastUser = [...messages].reverse().find((m) => m && m.role === 'user');
    const userText = lastUser ? contentText(lastUser.content) : '';
    const instruction = messages[0] && messages[0].role === 'system' ? contentText(messages[0].content) : '';
    if (titleRequestLanguage(instruction)) {
      if (titleScripts.length) return { source: 'title-queue', script: titleScripts.shift() };
      const asked = /^User:\n([\s\S]*?)\n\nAssistant:/.exec(userText);
      return { source: 'title', script: { text: mockTitle(asked ? asked[1] : userText, instruction) } };
    }
    if (scripts.length) return { source: 'queue', script: scripts.shift() };
    if (messages[0] && messages[0].role === 'system' && contentText(messages[0].content).startsWith('Edit request:')) {
      return { source: 'edit', script: { text: mockEdit(contentText(messages[0].content), userText) } };
    }
    const tour = tourScript(messages, userText);
    if (tour) return { source: 'tour', script: tour };
    const endsWithTool = last && last.role === 'tool';
    if (!endsWithTool) {
      const d = findDirective(userText, body.model);
      if (d) return { source: `mock:${d.name}`, script: d.script };
    }
    if (typeof body.model !== 'string' || !body.model) {
      return { source: 'no-model', script: { status: 400, body: errorBody('you must provide a model parameter', 'invalid_request_error', null) } };
    }
    if (!models.includes(body.model)) return { source: 'unknown-model', script: { status: 404, body: modelNotFound(body.model) } };
    if (endsWithTool) return { source: 'tool-result', script: { text: toolResultReply(contentText(last.content)) } };
    return { source: 'default', script: { text: defaultReply(userText) } };
  }

  function readBody(req) {
    return new Promise((resolve) => {
      const parts = [];
      req.on('data', (c) => parts.push(c));
      req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
      req.on('error', () => resolve(''));
    });
  }

  async function handle(req, res) {
    const url = new URL(req.url || '/', 'http://mock');
    const route = url.pathname.replace(/\/+$/, '') || '/';
    if (req.method === 'OPTIONS') {
      // `*` does not cover Authorization in the Fetch spec, hence the explicit names.
      const headers = baseHeaders({
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': '*, authorization, content-type, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access',
        'access-control-max-age': '600',
      });
      // Chrome's Private Network Access preflight (a public page calling localhost).
      if (req.headers['access-control-request-private-network']) headers['access-control-allow-private-network'] = 'true';
      res.writeHead(204, headers);
      return res.end();
    }
    const api = !route.startsWith('/__mock');
    if (api && apiKey && req.headers.authorization !== `Bearer ${apiKey}`) return sendJson(res, 401, genericErrorBody(401));
    if (req.method === 'GET' && (route === '/v1/models' || route === '/models')) {
      return sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: `tiddlyagent-mock (${MOCK_NOTICE})` })),
      });
    }
    if (req.method === 'GET' && route === '/__mock/requests') return sendJson(res, 200, requests);
    if (req.method === 'POST' && route === '/__mock/reset') {
      reset();
      return sendJson(res, 200, { ok: true });
    }
    if (req.method === 'POST' && route === '/__mock/queue') {
      try {
        const n = queue(JSON.parse(await readBody(req)));
        return sendJson(res, 200, { ok: true, queued: n });
      } catch (e) {
        return sendJson(res, 400, errorBody(`Mock queue body must be a JSON script or array: ${e.message}`, 'invalid_request_error', null));
      }
    }
    if (req.method === 'POST' && route === '/__mock/title-queue') {
      try {
        return sendJson(res, 200, { ok: true, queued: queueTitles(JSON.parse(await readBody(req))) });
      } catch (e) {
        return sendJson(res, 400, errorBody(`Mock title queue body must be a JSON script or array: ${e.message}`, 'invalid_request_error', null));
      }
    }
    if (req.method === 'POST' && route === '/__mock/embeddings-queue') {
      try {
        const n = queueEmbeddings(JSON.parse(await readBody(req)));
        return sendJson(res, 200, { ok: true, queued: n });
      } catch (e) {
        return sendJson(res, 400, errorBody(`Mock embeddings queue body must be a JSON script or array: ${e.message}`, 'invalid_request_error', null));
      }
    }
    if (req.method === 'POST' && (route === '/v1/embeddings' || route === '/embeddings')) {
      const record = {
        id: ++counter,
        receivedAt: Date.now(),
        method: req.method,
        path: url.pathname,
        body: null,
        headers: { ...req.headers },
        completed: true,
        aborted: false,
      };
      requests.push(record);
      try {
        record.body = JSON.parse(await readBody(req));
      } catch {
        return sendJson(res, 400, errorBody('We could not parse the JSON body of your request. (mock)', 'invalid_request_error', null));
      }
      const script = embeddingScripts.shift() || {};
      record.reply = Object.keys(script).length ? 'embeddings-queue' : 'embeddings';
      await sleep(script.delayMs ?? 0);
      if (script.status && script.status >= 400) return sendJson(res, script.status, script.body ?? genericErrorBody(script.status), script.headers);
      const input = record.body?.input;
      const texts = typeof input === 'string' ? [input] : Array.isArray(input) ? input : null;
      if (!texts?.every((t) => typeof t === 'string')) {
        return sendJson(res, 400, errorBody("'input' must be a string or a list of strings (mock)", 'invalid_request_error', null));
      }
      const dims = script.dims ?? embeddingDims;
      say(`POST ${url.pathname} model=${record.body?.model} texts=${texts.length}`);
      return sendJson(res, 200, {
        object: 'list',
        model: record.body?.model ?? 'mock-embedding',
        data: texts.map((t, index) => ({ object: 'embedding', index, embedding: hashedEmbedding(t, dims) })),
        usage: { prompt_tokens: texts.reduce((n, t) => n + estimateTokens(t), 0), total_tokens: texts.reduce((n, t) => n + estimateTokens(t), 0) },
      });
    }
    if (req.method === 'POST' && (route === '/v1/chat/completions' || route === '/chat/completions')) {
      const record = {
        id: ++counter,
        receivedAt: Date.now(),
        method: req.method,
        path: url.pathname,
        body: null,
        headers: { ...req.headers },
        completed: false,
        aborted: false,
      };
      // `aborted` = the client left before we ended the response; a deliberate cut is not an abort.
      let markClosed;
      const conn = {
        done: false,
        ended: false,
        cut: false,
        closed: new Promise((r) => {
          markClosed = r;
        }),
      };
      res.on('finish', () => {
        record.completed = true;
      });
      res.on('close', () => {
        conn.done = true;
        if (!conn.ended && !res.writableFinished && !conn.cut) record.aborted = true;
        markClosed();
      });
      requests.push(record);
      const raw = await readBody(req);
      try {
        record.body = JSON.parse(raw);
      } catch {
        record.rawBody = raw;
        return sendJson(res, 400, errorBody('We could not parse the JSON body of your request. (mock)', 'invalid_request_error', null));
      }
      const { source, script } = chooseScript(record.body || {});
      record.reply = source;
      say(`POST ${url.pathname} model=${record.body?.model} stream=${record.body?.stream === true} -> ${source}`);
      return play(req, res, conn, record, script || {});
    }
    if (req.method === 'GET' && (route === '/' || route === '/v1')) {
      return sendJson(res, 200, { name: 'TiddlyAgent mock LLM', notice: MOCK_NOTICE, baseUrl: '/v1' });
    }
    return sendJson(res, 404, errorBody(`Mock LLM: no route ${req.method} ${url.pathname}`, 'invalid_request_error', 'not_found'));
  }

  function queue(s) {
    const list = Array.isArray(s) ? s : [s];
    for (const item of list) {
      if (!item || typeof item !== 'object') throw new TypeError('a script must be an object');
    }
    scripts.push(...list);
    return list.length;
  }
  function queueEmbeddings(s) {
    const list = Array.isArray(s) ? s : [s];
    for (const item of list) {
      if (!item || typeof item !== 'object') throw new TypeError('a script must be an object');
    }
    embeddingScripts.push(...list);
    return list.length;
  }
  function queueTitles(s) {
    const list = Array.isArray(s) ? s : [s];
    for (const item of list) {
      if (!item || typeof item !== 'object') throw new TypeError('a script must be an object');
    }
    titleScripts.push(...list);
    return list.length;
  }
  function reset() {
    scripts.length = 0;
    titleScripts.length = 0;
    embeddingScripts.length = 0;
    requests.length = 0;
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      say(`handler error: ${e?.stack}`);
      if (!res.headersSent) sendJson(res, 500, errorBody(`Mock LLM internal error: ${e?.message}`, 'server_error', null));
      else res.destroy();
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actualPort = server.address().port;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${hostInUrl}:${actualPort}/v1`,
    port: actualPort,
    requests,
    queue,
    queueEmbeddings,
    queueTitles,
    reset,
    close() {
      closing = true;
      for (const s of sleepers) {
        clearTimeout(s.timer);
        s.resolve();
      }
      sleepers.clear();
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // stalled streams would otherwise keep close() waiting
      });
    },
  };
}

// Words too common to say anything about a text's topic.
const STOP_WORDS = new Set('a an and are as at be by for from has have in is it its of on or that the this to was were when with you your'.split(' '));

/** The mock's embedding of `text`: its words (lower-case letters and digits, not stop words) hashed into `dims` buckets, normalized. */
function hashedEmbedding(text, dims) {
  const v = new Array(dims).fill(0);
  for (const word of String(text)
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) || []) {
    if (STOP_WORDS.has(word)) continue;
    let h = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
    v[(h >>> 0) % dims] += 1;
  }
  const norm = Math.sqrt(v.reduce((n, x) => n + x * x, 0)) || 1;
  return v.map((x) => Math.round((x / norm) * 1e6) / 1e6);
}

module.exports = { startMockLlm, defaultReply, toolResultReply, mockTitle, titleRequestLanguage, hashedEmbedding, TOUR_FIND, TOUR_REPLACE };

if (require.main === module) {
  const argv = process.argv.slice(2);
  const flag = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const port = Number(flag('--port') ?? process.env.MOCK_LLM_PORT ?? 8765);
  const host = flag('--host') ?? '127.0.0.1';
  const delayMs = process.env.MOCK_LLM_DELAY_MS != null ? Number(process.env.MOCK_LLM_DELAY_MS) : 15;
  const apiKey = process.env.MOCK_LLM_API_KEY || undefined;
  startMockLlm({ port, host, delayMs, apiKey, log: true }).then(
    (mock) => {
      console.log(`TiddlyAgent mock LLM (${MOCK_NOTICE}) listening on ${mock.url}`);
      const stop = () => mock.close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (e) => {
      console.error(`mock LLM failed to start: ${e.message}`);
      process.exit(1);
    },
  );
}

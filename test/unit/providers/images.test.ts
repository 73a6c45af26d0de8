// Images in each adapter's request body: a user message with an attached image and a tool
// result that returned one, in every wire API's own format (OpenAI Chat Completions and
// Responses, Anthropic, Gemini, Ollama). Tool messages of Chat Completions cannot carry images,
// so theirs follow the tool messages as one labelled user message.
import { buildAnthropicRequestBody } from '../../../src/agent/providers/anthropic';
import { buildGeminiRequestBody } from '../../../src/agent/providers/gemini';
import { buildOllamaRequestBody } from '../../../src/agent/providers/ollama';
import { buildRequestBody } from '../../../src/agent/providers/openai-chat';
import { buildResponsesRequestBody } from '../../../src/agent/providers/openai-responses';
import type { ModelRequest } from '../../../src/agent/providers/types';

const PNG = { mediaType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAgNg6oAAAAABJRU5ErkJggg==' };
const JPEG = { mediaType: 'image/jpeg', data: '/9j/4AAQSkZJRgABAQ==' };

const request: ModelRequest = {
  model: 'vision-model',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'What is in this picture?', images: [PNG] },
    {
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'c1', name: 'wiki-read', args: { title: 'Photo' } },
        { id: 'c2', name: 'wiki-read', args: { title: 'Note' } },
      ],
    },
    { role: 'tool', toolCallId: 'c1', toolName: 'wiki-read', content: 'Photo: the image is attached.', images: [JPEG] },
    { role: 'tool', toolCallId: 'c2', toolName: 'wiki-read', content: 'A note.' },
    { role: 'assistant', content: 'A cat.' },
  ],
};

const body = (b: Record<string, unknown>) => JSON.parse(JSON.stringify(b));

test("openai-chat: image_url data URLs in the user content; a tool result's images in a labelled user message after the tool messages", () => {
  const { messages } = body(buildRequestBody(request));
  expect(messages).toEqual([
    { role: 'system', content: 'Be brief.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.data}` } },
      ],
    },
    expect.objectContaining({ role: 'assistant', tool_calls: expect.any(Array) }),
    { role: 'tool', tool_call_id: 'c1', content: 'Photo: the image is attached.' },
    { role: 'tool', tool_call_id: 'c2', content: 'A note.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'The image below came with the result of the tool call wiki-read (c1).' },
        { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${JPEG.data}` } },
      ],
    },
    { role: 'assistant', content: 'A cat.' },
  ]);
});

test('openai-chat: a user message without images keeps its plain string content', () => {
  const { messages } = body(buildRequestBody({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
  expect(messages).toEqual([{ role: 'user', content: 'hi' }]);
});

test('openai-responses: input_image parts in the user message and in the function call output', () => {
  const { input } = body(buildResponsesRequestBody(request));
  expect(input[0]).toEqual({
    role: 'user',
    content: [
      { type: 'input_text', text: 'What is in this picture?' },
      { type: 'input_image', image_url: `data:image/png;base64,${PNG.data}` },
    ],
  });
  expect(input.filter((i: { type?: string }) => i.type === 'function_call_output')).toEqual([
    {
      type: 'function_call_output',
      call_id: 'c1',
      output: [
        { type: 'input_text', text: 'Photo: the image is attached.' },
        { type: 'input_image', image_url: `data:image/jpeg;base64,${JPEG.data}` },
      ],
    },
    { type: 'function_call_output', call_id: 'c2', output: 'A note.' },
  ]);
});

test('anthropic: base64 image blocks in the user turn and inside the tool_result', () => {
  const { messages } = body(buildAnthropicRequestBody(request));
  expect(messages[0]).toEqual({
    role: 'user',
    content: [
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.data } },
    ],
  });
  expect(messages[2]).toEqual({
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'c1',
        content: [
          { type: 'text', text: 'Photo: the image is attached.' },
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: JPEG.data } },
        ],
      },
      { type: 'tool_result', tool_use_id: 'c2', content: 'A note.' },
    ],
  });
});

test('gemini: inlineData parts in the user content and beside the function responses', () => {
  const { contents } = body(buildGeminiRequestBody(request));
  expect(contents[0]).toEqual({ role: 'user', parts: [{ text: 'What is in this picture?' }, { inlineData: { mimeType: 'image/png', data: PNG.data } }] });
  // One content answers both calls: the function responses first, then the image.
  expect(contents[2]).toEqual({
    role: 'user',
    parts: [
      { functionResponse: { name: 'wiki-read', response: { content: 'Photo: the image is attached.' } } },
      { functionResponse: { name: 'wiki-read', response: { content: 'A note.' } } },
      { inlineData: { mimeType: 'image/jpeg', data: JPEG.data } },
    ],
  });
  expect(contents).toHaveLength(4);
});

test('ollama: an images list of base64 strings on the message', () => {
  const { messages } = body(buildOllamaRequestBody(request));
  expect(messages[1]).toEqual({ role: 'user', content: 'What is in this picture?', images: [PNG.data] });
  expect(messages[3]).toEqual({ role: 'tool', content: 'Photo: the image is attached.', tool_name: 'wiki-read', images: [JPEG.data] });
  expect(messages[4]).toEqual({ role: 'tool', content: 'A note.', tool_name: 'wiki-read' });
});

// mcpTools: how an MCP server's listed tools become the agent's tools. Names are
// mcp-<server>-<tool>; a tool that cannot be offered (not an object schema, an unusable or
// clashing name) is left out with its reason; results are labelled and bounded.
import { mcpTools, resultText, unavailableServerTool, type McpCaller } from '../../../src/agent/tools/mcp-tools';
import * as z from 'zod/mini';

const caller: McpCaller = { call: async () => ({ content: [{ type: 'text', text: 'ok' }] }) };

test('listed tools become mcp-<server>-<tool> with the server schema; odd ones are left out with a reason', () => {
  const { tools, skipped } = mcpTools(
    'files',
    [
      { name: 'read', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
      { name: 'list', inputSchema: { type: 'array' } },
      { name: 'bad name!', inputSchema: { type: 'object' } },
      { name: 'clash', inputSchema: { type: 'object' } },
    ],
    caller,
    new Set(['mcp-files-clash']),
  );
  expect(tools.map((t) => t.name)).toEqual(['mcp-files-read']);
  expect(tools[0]!.defaultMode).toBe('confirm');
  expect(tools[0]!.description).toBe('[MCP server "files"] Read a file');
  expect(z.toJSONSchema(tools[0]!.parameters, { io: 'input' })).toMatchObject({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] });
  expect(tools[0]!.parameters.safeParse([]).success).toBe(false);
  expect(skipped).toEqual([
    expect.stringMatching(/^list: .*not an object schema/),
    expect.stringMatching(/^bad name!: not a usable tool name/),
    expect.stringMatching(/^clash: mcp-files-clash is already another tool's name/),
  ]);
});

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAgNg6oAAAAABJRU5ErkJggg==';

test('results: text kept, images attached or said why not, audio named, malformed said, labelled as untrusted, cut when huge', () => {
  expect(
    resultText('s', 't', {
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', mimeType: 'image/png', data: PNG },
      ],
    }),
  ).toMatch(/untrusted data from an outside server.*\nhello\n\[image \(image\/png, 1 KB\): attached to this result\]$/s);
  expect(resultText('s', 't', { content: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }] })).toMatch(
    /\[image \(image\/png\) not shown: its bytes are not a PNG, JPEG, GIF or WebP image\.\]$/,
  );
  expect(resultText('s', 't', { content: [{ type: 'audio', mimeType: 'audio/wav', data: 'AAAA' }] })).toMatch(/\[audio \(audio\/wav, 3 bytes\) not shown\]$/);
  expect(resultText('s', 't', { content: 'nope' } as never)).toMatch(/malformed result/);
  expect(resultText('s', 't', { content: [{ type: 'text', text: 'x'.repeat(60_000) }] })).toMatch(/cut at 50000 characters\]$/);
  expect(resultText('s', 't', { content: [{ type: 'text', text: 'bad' }], isError: true })).toMatch(/^The tool reported an error\./);
});

test('a call returns the images that pass the check, for the engine to keep; the others only named', async () => {
  const images: McpCaller = {
    call: async () => ({
      content: [
        { type: 'image', mimeType: 'image/png', data: PNG },
        { type: 'image', mimeType: 'image/png', data: btoa('not a png at all') },
      ],
    }),
  };
  const [tool] = mcpTools('pics', [{ name: 'snap', inputSchema: { type: 'object' } }], images, new Set()).tools;
  const output = await tool!.execute({}, { signal: new AbortController().signal } as never);
  expect(output.images).toEqual([{ mediaType: 'image/png', data: PNG }]);
  expect(output.content).toMatch(/attached to this result\]\n\[image \(image\/png\) not shown: its bytes are not/);
});

test('an unreachable server is one tool that says why', async () => {
  const tool = unavailableServerTool('down', 'it closed the connection at start');
  expect(tool.name).toBe('mcp-down');
  expect(await tool.execute({}, {} as never)).toEqual({ ok: false, content: 'The MCP server "down" is not available: it closed the connection at start' });
});

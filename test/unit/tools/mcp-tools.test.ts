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
  expect(skipped).toEqual([expect.stringMatching(/^list: .*not an object schema/), expect.stringMatching(/^bad name!: not a usable tool name/), expect.stringMatching(/^clash: mcp-files-clash is already another tool's name/)]);
});

test('results: text kept, images named, malformed said, labelled as untrusted, cut when huge', () => {
  expect(resultText('s', 't', { content: [{ type: 'text', text: 'hello' }, { type: 'image', mimeType: 'image/png', data: 'AAAA' }] })).toMatch(/untrusted data from an outside server.*\nhello\n\[image \(image\/png, 3 bytes\) not shown\]$/s);
  expect(resultText('s', 't', { content: 'nope' } as never)).toMatch(/malformed result/);
  expect(resultText('s', 't', { content: [{ type: 'text', text: 'x'.repeat(60_000) }] })).toMatch(/cut at 50000 characters\]$/);
  expect(resultText('s', 't', { content: [{ type: 'text', text: 'bad' }], isError: true })).toMatch(/^The tool reported an error\./);
});

test('an unreachable server is one tool that says why', async () => {
  const tool = unavailableServerTool('down', 'it closed the connection at start');
  expect(tool.name).toBe('mcp-down');
  expect(await tool.execute({}, {} as never)).toEqual({ ok: false, content: 'The MCP server "down" is not available: it closed the connection at start' });
});

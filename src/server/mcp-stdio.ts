/*\
The MCP SDK's stdio client transport (it starts the server as a child process), for MCP
servers defined with `mcp-command`: Node.js only, so it lives in the server plugin, which a
wiki served with `--listen` or run headless with `--agent-send` loads.
\*/
export { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

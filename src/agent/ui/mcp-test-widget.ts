/*\
<$action-ai-mcp-test server=…/>: connects to an MCP server where turns run (this page, or
the server in the server edition) and lists its tools, for the settings tab. The result goes
to `$:/temp/tiddlyagent/mcp-test/<name>` (field `ok`: yes | no | testing; text: the tools or
the error), which the settings tab shows.
\*/
import { ActionWidget } from './action-widget';
import { lib } from './library';

export const MCP_TEST_PREFIX = '$:/temp/tiddlyagent/mcp-test/';

class McpTestWidget extends ActionWidget {
  override invokeAction(): boolean {
    const server = this.getAttribute('server', '');
    if (!server) return true;
    const title = `${MCP_TEST_PREFIX}${server}`;
    const wiki = this.wiki;
    wiki.addTiddler({ title, ok: 'testing', text: 'Connecting…' });
    lib()
      .getRunner()
      .testMcpServer(server)
      .then(
        (result) => wiki.addTiddler({ title, ok: result.ok ? 'yes' : 'no', text: result.ok ? `Connected: ${result.tools.length} tools (${result.tools.join(', ')})` : `Not connected: ${result.error ?? 'unknown error'}` }),
        (e: unknown) => wiki.addTiddler({ title, ok: 'no', text: `Not connected: ${e instanceof Error ? e.message : String(e)}` }),
      );
    return true;
  }
}

export { McpTestWidget as 'action-ai-mcp-test' };

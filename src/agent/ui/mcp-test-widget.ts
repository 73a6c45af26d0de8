/*\
<$action-ai-mcp-test server=…/>: connects to an MCP server where turns run (this page, or
the server in the server edition) and lists its tools, for the settings tab. The result goes
to `$:/temp/tiddlyagent/mcp-test/<name>` (field `ok`: yes | no | testing; text: the tools or
the error), which the settings tab shows.
\*/
import { ActionWidget } from './action-widget';
import { page } from './library';
import { lingo } from './lingo';

export const MCP_TEST_PREFIX = '$:/temp/tiddlyagent/mcp-test/';

class McpTestWidget extends ActionWidget {
  override invokeAction(): boolean {
    const server = this.getAttribute('server', '');
    if (!server) return true;
    const title = `${MCP_TEST_PREFIX}${server}`;
    const wiki = this.wiki;
    // The result is a snapshot in the language of the moment the button was pressed.
    const words = (key: string) => lingo(wiki, key);
    const notConnected = (error: string) => words('Mcp/NotConnected').replace('$error$', error);
    wiki.addTiddler({ title, ok: 'testing', text: words('Mcp/Connecting') });
    page()
      .getRunner()
      .query({ kind: 'mcp-test', server })
      .then(
        (result) =>
          wiki.addTiddler({
            title,
            ok: result.ok ? 'yes' : 'no',
            text: result.ok
              ? words('Mcp/Connected').replace('$count$', String(result.tools.length)).replace('$tools$', result.tools.join(', '))
              : notConnected(result.error ?? words('Mcp/UnknownError')),
          }),
        (e: unknown) => wiki.addTiddler({ title, ok: 'no', text: notConnected(e instanceof Error ? e.message : String(e)) }),
      );
    return true;
  }
}

export { McpTestWidget as 'action-ai-mcp-test' };

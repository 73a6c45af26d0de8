/*\
The read tools: wiki-search, wiki-read, wiki-list, wiki-backlinks, wiki-toc, wiki-recent,
wiki-get-errors. All `access: 'read'`; none of them ever shows a tiddler hidden from the
agent (visibility.ts), and every tiddler they show carries its `modified`.
\*/
import type { ToolDefinition } from './tool';
import { wikiBacklinksTool } from './wiki-backlinks';
import { wikiGetErrorsTool } from './wiki-get-errors';
import { wikiListTool } from './wiki-list';
import { wikiReadTool } from './wiki-read';
import { wikiRecentTool } from './wiki-recent';
import { wikiSearchTool } from './wiki-search';
import { wikiTocTool } from './wiki-toc';

export { wikiBacklinksTool, wikiGetErrorsTool, wikiListTool, wikiReadTool, wikiRecentTool, wikiSearchTool, wikiTocTool };

export const WIKI_READ_TOOLS: ToolDefinition[] = [
  wikiSearchTool,
  wikiReadTool,
  wikiListTool,
  wikiBacklinksTool,
  wikiTocTool,
  wikiRecentTool,
  wikiGetErrorsTool,
];

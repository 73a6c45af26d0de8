/*\
The tools this plugin ships, by name. Other plugins add tools with modules of type
`tiddlyagent-tool` that export `tool` (a ToolDefinition); users add them as tiddlers tagged
`$:/tags/AI/Tool` (user-tools.ts).
\*/
import { askQuestionTool, summaryTool } from './control-tools';
import { SCHEDULE_TOOLS } from './schedule-tools';
import { spawnAgentTool } from './spawn-agent';
import { manageTodoTool } from './manage-todo';
import { editAgentDefinitionTool } from './edit-agent-definition';
import type { ToolDefinition } from './tool';
import { WIKI_READ_TOOLS } from './wiki-read-tools';
import { WIKI_WRITE_TOOLS } from './wiki-write-tools';
import { webFetchTool } from './web-fetch';
import { rememberTool } from './remember';

export const BUILTIN_TOOLS: readonly ToolDefinition[] = [
  ...WIKI_READ_TOOLS,
  ...WIKI_WRITE_TOOLS,
  summaryTool,
  askQuestionTool,
  manageTodoTool,
  ...SCHEDULE_TOOLS,
  spawnAgentTool,
  editAgentDefinitionTool,
  webFetchTool,
  rememberTool,
];

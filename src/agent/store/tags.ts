/*\
The tags that make a tiddler one of TiddlyAgent's own kinds. A module of its own, without zod or
croner, so a start-up module can look for them without loading the library.
\*/

export const AGENT_TAG = '$:/tags/AI/Agent';
export const PROVIDER_TAG = '$:/tags/AI/Provider';
export const MCP_SERVER_TAG = '$:/tags/AI/MCPServer';
/** A schedule (schedules/schedule.ts). */
export const SCHEDULE_TAG = '$:/tags/AI/Schedule';
/** A trigger (schedules/trigger.ts). */
export const TRIGGER_TAG = '$:/tags/AI/Trigger';

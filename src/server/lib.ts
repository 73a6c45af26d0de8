/*\
The server edition's library module, required by its routes, macro and start-up module.
\*/
export { startServerEdition, getServerEdition, keyStates, INTERRUPTED, STATE_FOLDER, type ServerEdition } from './server-edition';
export { handleAction } from './actions';
export { PushHub } from './push/push-hub';
export { DurableStore } from './durable/durable-store';
export { OperationFileLog } from './durable/operation-file-log';
export { writeFileAtomic, removeStaleTemps } from './durable/atomic-file';
export { handleMcp, closeMcpSessions, mcpEnabled } from './mcp/mcp-endpoint';

/*\
The TiddlyAgent library module: everything the widgets, startup modules and other plugins
use, bundled once. Other modules require it as `$:/plugins/tiddlyagent/agent/lib.js`.
\*/
export { getRunner, getLocalRunner, createLocalRunner, getSecret } from './runner/default-runner';
export { ownerPolicy, ownerKeyState, setOwnerConfigPath, parseOwnerPolicy, CONFIG_ENV, type OwnerPolicy } from './runner/host/owner-policy';
export { setOwnServerPorts } from './runner/host/outbound-node';
export { LocalRunner, CHAT_ARCHIVED, CHAT_DELETED, AUTO_TITLE_CONFIG, type RunnerHost, type ExternalChat } from './runner/local-runner';
export { CHAT_RENAMED_FROM } from './runner/services/chat-move';
export { titleProblem, type TitleProblem } from './store/chat-titles';
export { ExternalToolSession, CHAT_MCP_SESSION, EXTERNAL_TOOLS, type ExternalToolSpec, type ExternalCallResult } from './runner/services/external-session';
export { RemoteRunner } from './runner/remote-runner';
export {
  RunnerError,
  HTTP_STATUS,
  type ApprovalChoice,
  type ChatRunner,
  type McpTestResult,
  type PromptPreview,
  type RollbackResult,
} from './runner/chat-runner';
export { MemoryOperationLog, OperationQueue, FINISHED, type Operation, type OperationLog, type OperationStatus } from './runner/operations';
export { createTiddlyWikiPort } from './runner/host/tiddlywiki-port';
export { ensureWebGlobals } from './runner/host/host';
export { ChatStore, REPLY_TYPE, StatusError } from './store/chat-store';
export {
  chatParts,
  chatPartTitles,
  chatFamily,
  isPart,
  hasScheme,
  journalTitle,
  messagePrefix,
  todoTitle,
  MESSAGE_PREFIX,
  TODO_PREFIX,
  TODO_CHAT_FIELD,
  SCHEDULE_PREFIX,
  PART_KINDS,
  SHOWN_PARTS,
  type PartKind,
} from './store/chat-parts';
export { canTransition, STATUS_TRANSITIONS } from './store/status';
export { TodoList } from './store/todo-list';
export { parseChecklist, formatChecklist, checklistProgress, type ChecklistItem } from './store/checklist';
export { createLanguageModel } from './providers';
export * from './store/schemas';
export { CONFIG, configValue } from './store/config';
export { EventBus, type AgentEvent, type AgentEventBody } from './engine/events';
export type { EnginePlugin, EngineHooks, TurnContext } from './engine/hooks';
export { CHAT_CONTEXT_USAGE, CHAT_ALLOWED_TOOLS } from './engine/loop';
export { createToolContext, defineTool, type ToolContext, type ToolDefinition, type ToolOutput } from './tools/tool';
export { WriteGate, WriteRefused, restoreJournal } from './tools/write-gate';
export { findActiveContent } from './tools/active-content';
export { changeRegions, diffText, diffWords, type Piece, type Region } from './tools/text-diff';
export { sameFields } from './tools/journal';
export { fingerprint } from './store/fingerprint';
export { isHiddenFromAgent } from './tools/visibility';
export { WIKI_WRITE_TOOLS } from './tools/wiki-write-tools';
export { WIKI_READ_TOOLS } from './tools/wiki-read-tools';
export { rankText } from './tools/wiki-search';
export { keepTextIndexIn, textIndexOf, TEXT_INDEX_STATUS, type KeptTextIndex, type TextIndexStore } from './runner/host/text-index-host';
export { documentText, keepPdfTextIn, pdfTextStats, type PdfTextStore } from './runner/host/pdf-text';
export { PDF_TIME_LIMIT_MS, setPdfLimits } from './runner/host/pdf-worker';
export { manageTodoTool } from './tools/manage-todo';
export { editAgentDefinitionTool } from './tools/edit-agent-definition';
export { rememberTool, REMEMBER } from './tools/remember';
export { memoriesInScope, MEMORY_TAG, MemoryBook } from './store/memory';
export { EDIT_INSTRUCTIONS, type EditInstruction, type EditRequest } from './engine/edit-request';
export { initialLiveState, reduceLiveState, type LiveChatState, type QueuedMessage } from './engine/live-state';
export { parseSafeWikitext, SAFE_RULES, settledLength } from './ui/safe-render';
export { Scheduler, SCHEDULE_SOURCE, type SchedulerHost } from './schedules/scheduler';
export { systemClock, type Clock } from './clock';
export { startScheduler, type RunningScheduler } from './runner/host/scheduler-host';
export { ScheduleBook, SCHEDULER_FIELDS, MAX_SCHEDULES_PER_CHAT } from './schedules/schedule-book';
export { parseSchedule, nextRunAfter, isScheduleTiddler, SCHEDULE_TAG, ScheduleError, type Schedule } from './schedules/schedule';
export { scheduleFormFields, type ScheduleForm } from './schedules/schedule-form';
export { agentSpend, spendCapReached } from './store/spend';
export { TriggerWatch, triggerEntry, triggerTitles, TRIGGER_RUN_FIELDS, TRIGGER_SOURCE } from './schedules/trigger-watch';
export { parseTrigger, isTriggerTiddler, TRIGGER_TAG, TriggerError, DEFAULT_DEBOUNCE_SECONDS } from './schedules/trigger';
export { heartbeats, heartbeatProblem, CHAT_HEARTBEAT, CHAT_HEARTBEAT_NEXT } from './schedules/heartbeat';
export { McpConnections, type McpHost, type McpSdk } from './runner/host/mcp-client';
export { mcpTools, resultText as mcpResultText, MCP_PREFIX } from './tools/mcp-tools';
export { webFetchTool } from './tools/web-fetch';
export { parseAllowHosts, isAllowListed, WEB_ALLOW_HOSTS, type WebFetcher, type WebPage, type WebFetchRequest } from './tools/web-fetcher';
export { createNodeWebFetcher, type NodeWebFetcherOptions } from './runner/host/web-fetch-node';
export { createBrowserWebFetcher, CORS_MESSAGE } from './runner/host/web-fetch-browser';
export { startSemanticIndexer, getSemanticIndexer, semanticPort } from './runner/host/semantic-host';
export { SemanticIndexer, SEMANTIC_ENABLED, SEMANTIC_PROFILE, SEMANTIC_STATUS, type VectorStore } from './runner/host/semantic-indexer';
export { createIndexedDbVectorStore } from './runner/host/vector-store-idb';
export { VectorIndex, INDEX_FORMAT } from './search/vector-index';
export { createEmbeddingModel } from './providers/embeddings';
// Export and import (issue 16)
export {
  exportChat,
  gatherChat,
  importText,
  checkImportSize,
  formatSize,
  ImportError,
  MAX_IMPORT_BYTES,
  IMPORT_TOOL_CEILING,
  type ImportPlan,
  type ExportFormat,
  type ExportResult,
} from './runner/services/transfer';

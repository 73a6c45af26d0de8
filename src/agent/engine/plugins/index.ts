/*\
The built-in engine plugins, attached to every turn in this order. Order matters where two
tap one hook: the prompt comes before the tool list is inserted after it (the todo list's
section follows the prompt's own), and tool calls are parsed from a text-protocol reply
before the reply is persisted.
\*/
import type { EnginePlugin } from '../hooks';
import { describePlugin } from './describe';
import { memoryPlugin } from './memory';
import { persistencePlugin } from './persistence';
import { promptPlugin } from './prompt';
import { sourcesPlugin } from './sources';
import { statusPlugin } from './status';
import { streamingPlugin } from './streaming';
import { todoPlugin } from './todo';
import { toolCallingPlugin } from './tool-calling';

export const BUILTIN_PLUGINS: readonly EnginePlugin[] = [
  statusPlugin,
  streamingPlugin,
  promptPlugin,
  todoPlugin,
  describePlugin,
  memoryPlugin,
  toolCallingPlugin,
  sourcesPlugin,
  persistencePlugin,
];

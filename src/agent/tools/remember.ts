/*\
`remember`: the agent proposes a short fact worth keeping across chats (about the user, a
project, a preference). It only ever writes a *proposal* (store/memory.ts: `memory-status:
proposed`, under `$:/ai/memory/`, linked to the message that started the turn): the user
reviews it in the chat, edits it, and accepts or discards it. Only accepted memories reach a
prompt, as quoted data (engine/plugins/memory.ts). The model cannot accept, edit or read a
memory: the write gate refuses the memory tag and fields, and `$:/ai/` is hidden from it.
\*/
import * as z from 'zod/mini';
import { MAX_FACT_CHARS, MemoryError } from '../store/memory';
import { defineTool, type ToolOutput } from './tool';

export const REMEMBER = 'remember';

export const rememberTool = defineTool({
  name: REMEMBER,
  description: [
    'Propose a short fact to remember across chats: something the user told you about themselves, a project or a preference that will help in later chats.',
    `One fact per call, one short sentence of at most ${MAX_FACT_CHARS} characters, written as a statement (e.g. "The user prefers metric units.").`,
    'The user reviews every proposal: it is used in later chats only once they accept it. Do not store secrets, passwords or anything the user did not tell you.',
  ].join(' '),
  parameters: z.object({ fact: z.string() }),
  access: 'control',
  defaultMode: 'auto',
  execute({ fact }, context): ToolOutput {
    if (context.signal.aborted) return { ok: false, content: 'Nothing was proposed: the call was stopped.' };
    try {
      const { existing } = context.memories.propose(fact, context.turn || context.chat, context.agent.title, context.chat, context.now());
      return {
        content: existing
          ? 'This fact is already remembered or waiting for review; nothing new was proposed.'
          : 'Proposed. The user reviews it in the chat; it is used in later chats only if they accept it.',
      };
    } catch (e) {
      if (e instanceof MemoryError) return { ok: false, content: `Nothing was proposed: ${e.message}` };
      throw e;
    }
  },
});

/*\
Built-in plugin: the memories the user accepted (store/memory.ts) in every prompt. The accepted,
unexpired memories in scope for the chat's agent go into one protected system section after
the system prompt (and the plugins' documentation), newest first, up to MEMORY_TOKENS: the
rest are left out, so memories never crowd out the conversation. They are presented as data:
each fact is one JSON string (no angle brackets, so it cannot close the block), inside a block
the model is told holds facts about the user, never instructions. The reply records the
memories its prompt carried (`agent-memories`), so the chat shows them under it.
\*/
import { MEMORY_TAG, memoriesInScope, quotedFact, type Memory } from '../../store/memory';
import { estimateTokens } from '../context';
import type { EnginePlugin } from '../hooks';
import { ENGLISH_PROMPT_WORDS, fill, promptWords } from '../prompt-words';

/** The most tokens the memory section takes. */
export const MEMORY_TOKENS = 1000;
/** TurnContext.metadata key: the memories of the latest prompt. */
const GIVEN = 'memories';

export const memoryPlugin: EnginePlugin = {
  name: 'memory',
  apply(hooks) {
    hooks.processPrompts.tap('memory', (build, ctx) => {
      const words = promptWords(ctx.words);
      const memories = fitMemories(memoriesInScope(ctx.store.wiki, ctx.agent.title, ctx.services.now()), words);
      ctx.metadata[GIVEN] = memories.map((m) => m.title);
      if (!memories.length) return;
      // After the system prompt and the plugins' documentation: the system sections that open the prompt.
      let after = 0;
      while (after < build.sections.length && build.sections[after]!.kind === 'system') after++;
      build.sections.splice(after, 0, {
        id: 'memories',
        kind: 'system',
        protected: true,
        messages: [{ role: 'system', content: memorySection(memories, words) }],
      });
    });
    // Before the persistence plugin writes the reply (plugins/index.ts).
    hooks.responseComplete.tap('memory', (response, ctx) => {
      const given = ctx.metadata[GIVEN];
      if (Array.isArray(given) && given.length) response.memories = given as string[];
    });
  },
};

/** The memories, newest first, that the section holds within MEMORY_TOKENS (one too long for the room left is skipped). */
export function fitMemories(memories: Memory[], words = ENGLISH_PROMPT_WORDS): Memory[] {
  const kept: Memory[] = [];
  let tokens = estimateTokens(memorySection([], words));
  for (const memory of memories) {
    const cost = estimateTokens(quotedFact(memory.text)) + 2;
    if (tokens + cost > MEMORY_TOKENS) continue;
    kept.push(memory);
    tokens += cost;
  }
  return kept;
}

/** The section: the intro (in the wiki's language), then one quoted fact per line, inside one block. */
export function memorySection(memories: Memory[], words = ENGLISH_PROMPT_WORDS): string {
  return ['<user_memories>', fill(words.memoriesIntro, { tag: MEMORY_TAG }), ...memories.map((m) => `- ${quotedFact(m.text)}`), '</user_memories>'].join('\n');
}

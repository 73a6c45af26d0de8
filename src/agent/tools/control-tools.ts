/*\
Tools that steer the loop rather than touch the wiki: `summary` ends the turn with a final
answer, `ask-question` pauses it until the user answers (or cancels).
\*/
import * as z from 'zod/mini';
import { defineTool } from './tool';

export const summaryTool = defineTool({
  name: 'summary',
  description: 'Finish the task: give the final answer to the user (TiddlyWiki wikitext). Ends the turn.',
  parameters: z.object({ text: z.string().check(z.minLength(1)) }),
  access: 'control',
  defaultMode: 'auto',
  execute: ({ text }) => ({ content: text, control: { type: 'end-turn' } }),
});

export const askQuestionTool = defineTool({
  name: 'ask-question',
  description:
    'Ask the user a clarifying question and wait for the answer. Use options for single-select or multi-select questions; the user may also answer in free text when allowFreeform is true.',
  parameters: z.object({
    question: z.string().check(z.minLength(1)),
    inputType: z._default(z.enum(['single-select', 'multi-select', 'text']), 'text'),
    options: z._default(z.array(z.string()), []),
    allowFreeform: z._default(z.boolean(), true),
  }),
  access: 'control',
  defaultMode: 'auto',
  execute: (args) => ({
    content: '',
    control: { type: 'ask-user', question: { question: args.question, inputType: args.inputType, options: args.options, allowFreeform: args.allowFreeform } },
  }),
});

/** The tool result text for answered questions, in Agentty's `Clarifications:` format. */
export function formatClarifications(answers: { question: string; answer: string }[]): string {
  return ['Clarifications:', ...answers.map((a, i) => `${i + 1}. Q: ${a.question}\n   A: ${a.answer || '(no answer)'}`)].join('\n');
}

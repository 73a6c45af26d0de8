/*\
The prompt's fixed words (engine/prompt-words.ts) in the wiki's language, read from the
language tiddlers `Prompt/Words/<name>` each turn, so a change of `$:/language` reaches the
next request. A missing or blank translation leaves the engine's English.
\*/
import type { PromptWords } from '../engine/prompt-words';
import { lingoOf, type ReadText } from './lingo';

const NAMES: (keyof PromptWords)[] = [
  'currentTiddler',
  'currentTiddlerMissing',
  'todoIntro',
  'memoriesIntro',
  'attached',
  'attachedSvg',
  'attachedMissing',
  'summaryHeading',
  'summaryRequest',
  'titleRequest',
];

export function readPromptWords(read: ReadText): Partial<PromptWords> {
  const words: Partial<PromptWords> = {};
  for (const name of NAMES) words[name] = lingoOf(read, `Prompt/Words/${name}`);
  return words;
}

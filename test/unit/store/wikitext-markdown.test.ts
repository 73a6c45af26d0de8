// A reply's wikitext reads right as Markdown in the Markdown export.
import { wikitextToMarkdown } from '../../../src/agent/store/transfer/wikitext-markdown';

test('bold, italic, headings, lists and links become Markdown; URLs and code are left as they are', () => {
  const reply = [
    '! Plan',
    "''Mock reply'' from the //offline// model: see [[Welcome to TiddlyAgent]] and [[the docs|https://tiddlywiki.com/]].",
    '* beds',
    '** tomatoes at https://example.com/a and https://example.com/b',
    '# first',
    '#* detail',
    'Keep `//not italic//` and:',
    '```',
    "''as written''",
    '```',
  ].join('\n');
  expect(wikitextToMarkdown(reply).split('\n')).toEqual([
    '# Plan',
    '**Mock reply** from the *offline* model: see Welcome to TiddlyAgent and [the docs](https://tiddlywiki.com/).',
    '- beds',
    '  - tomatoes at https://example.com/a and https://example.com/b',
    '1. first',
    '  - detail',
    'Keep `//not italic//` and:',
    '```',
    "''as written''",
    '```',
  ]);
});

// The todo list's markdown checklist (manage-todo): nesting by two spaces, at most one level
// deeper than the line before; every malformed line is an error naming it; progress counts.
import { checklistProgress, formatChecklist, MAX_TODO_CHARS, MAX_TODO_ITEMS, parseChecklist, progressText } from '../../../src/agent/store/checklist';

function items(text: string) {
  const parsed = parseChecklist(text);
  if (!parsed.ok) throw new Error(`expected a valid list, got: ${parsed.error}`);
  return parsed.items;
}

function error(text: string): string {
  const parsed = parseChecklist(text);
  if (parsed.ok) throw new Error(`expected an error for ${JSON.stringify(text)}`);
  return parsed.error;
}

describe('valid lists', () => {
  test('items, their state and their nesting', () => {
    const list = items(['- [ ] Plan the page', '  - [x] Read the notes', '  - [ ] Outline', '    - [X] Intro', '- [x] Ask the user'].join('\n'));
    expect(list.map((i) => [i.depth, i.done, i.text])).toEqual([
      [0, false, 'Plan the page'],
      [1, true, 'Read the notes'],
      [1, false, 'Outline'],
      [2, true, 'Intro'],
      [0, true, 'Ask the user'],
    ]);
  });

  test('a nested item may come back out by several levels at once; blank lines and CRLF are fine', () => {
    const list = items('- [ ] a\r\n  - [ ] b\r\n    - [ ] c\r\n\r\n- [ ] d\n');
    expect(list.map((i) => i.depth)).toEqual([0, 1, 2, 0]);
  });

  test('the canonical form round-trips', () => {
    const text = ['- [ ] one', '  - [x] two', '- [x] three'].join('\n');
    expect(formatChecklist(items(text))).toBe(text);
    expect(formatChecklist(items('- [X]   spaced out   '))).toBe('- [x] spaced out');
  });
});

describe('malformed lists are errors that name the line', () => {
  test.each([
    ['a line that is not an item', '- [ ] fine\nJust a sentence', /Line 2 .*not a checklist item/],
    ['a plain bullet', '- [ ] fine\n- no box', /Line 2 .*not a checklist item/],
    ['a bad box', '- [y] what', /Line 1 .*not a checklist item/],
    ['an odd indent', '- [ ] a\n   - [ ] b', /Line 2.*two spaces/],
    ['a tab indent', '- [ ] a\n\t- [ ] b', /Line 2.*tabs/],
    ['nesting two levels deeper', '- [ ] a\n    - [ ] b', /Line 2 .*nested too deep/],
    ['a first item that is nested', '  - [ ] a', /Line 1 .*nested too deep/],
    ['an item without text', '- [ ] a\n- [x]   ', /Line 2.*no text/],
    ['an item without text or space', '- [ ]', /Line 1.*no text/],
    ['no items at all', '\n  \n', /no items/],
  ])('%s', (_what, text, message) => {
    expect(error(text)).toMatch(message);
  });

  test('too many items, or too many characters', () => {
    const many = Array.from({ length: MAX_TODO_ITEMS + 1 }, (_, i) => `- [ ] item ${i}`).join('\n');
    expect(error(many)).toMatch(new RegExp(`more than ${MAX_TODO_ITEMS} items`));
    expect(items(many.split('\n').slice(0, MAX_TODO_ITEMS).join('\n'))).toHaveLength(MAX_TODO_ITEMS);
    expect(error(`- [ ] ${'x'.repeat(MAX_TODO_CHARS)}`)).toMatch(/too long/);
  });
});

test('progress counts done items at every level', () => {
  const list = items(['- [x] a', '  - [x] a1', '  - [ ] a2', '- [ ] b', '- [ ] c', '  - [x] c1', '- [ ] d'].join('\n'));
  expect(checklistProgress(list)).toEqual({ done: 3, total: 7 });
  expect(progressText(list)).toBe('3 of 7 done');
});

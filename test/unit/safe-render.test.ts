// settledLength: where a streaming reply can be cut into blocks that will not change.
import { settledLength } from '../../src/agent/ui/safe-render';

test('the settled part ends after the last blank line', () => {
  expect(settledLength('One paragraph still streaming')).toBe(0);
  const text = 'First paragraph.\n\nSecond one.\n\nThird, still stre';
  expect(text.slice(0, settledLength(text))).toBe('First paragraph.\n\nSecond one.\n\n');
});

test('a blank line inside an open code block does not settle anything after the fence', () => {
  const text = 'Intro.\n\n```\ncode line\n\nmore code\n';
  expect(text.slice(0, settledLength(text))).toBe('Intro.\n\n');
  const closed = text + '```\n\nAfter.';
  expect(closed.slice(0, settledLength(closed))).toBe(text + '```\n\n');
});

test('leading blank lines are not a block boundary', () => {
  expect(settledLength('\nHello')).toBe(0);
});

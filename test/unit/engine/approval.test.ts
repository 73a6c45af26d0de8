/*\
evaluateApproval: allow/deny patterns test what a call touches (issue 9, item 3). For a wiki
tool the titles it reads or writes (its targets, worked out by the caller); for other tools
the arguments as JSON (never the tool-name wrapper). Order: deny → allow → chat → mode.
\*/
import { evaluateApproval, hasPatterns, parseApprovalConfig } from '../../../src/agent/engine/approval';

const rules = (json: unknown) => parseApprovalConfig(JSON.stringify(json), 'Some agent');
const edit = { name: 'wiki-edit', access: 'write' as const };
const rename = { name: 'wiki-rename', access: 'write' as const };
const userTool = { name: 'send-note', access: 'write' as const };

/** wiki-edit arguments: the title and one find/replace. */
const editArgs = (title: string, replace: string) => ({ title, modified: '20260101000000000', edits: [{ find: 'old', replace }] });

describe('the attack of issue 9: an allow pattern is tested against titles, not the call', () => {
  const config = rules({ 'wiki-edit': { allow: ['^Drafts/'] } });

  test('an edit of "Diary" whose replacement text contains "Drafts/" is not auto-approved', () => {
    const args = editArgs('Diary', 'moved to Drafts/x, see [[Drafts/x]]');
    expect(evaluateApproval(config, edit, args, false, ['Diary'])).toEqual({ decision: 'confirm', reason: 'the tool needs confirmation' });
  });

  test('an edit of "Drafts/x" is auto-approved, whatever its text', () => {
    expect(evaluateApproval(config, edit, editArgs('Drafts/x', 'anything'), false, ['Drafts/x'])).toEqual({
      decision: 'allow',
      reason: 'allowed by the rule /^Drafts\\//',
      rule: { kind: 'allow', tool: 'wiki-edit', patterns: ['^Drafts/'], on: 'titles' },
    });
  });

  test('an unanchored pattern still only sees titles: "Diary" with Drafts/ in its text is not allowed', () => {
    const loose = rules({ 'wiki-edit': { allow: ['Drafts/'] } });
    expect(evaluateApproval(loose, edit, editArgs('Diary', 'Drafts/'), false, ['Diary']).decision).toBe('confirm');
    // ...but it matches anywhere in a title, which is why the docs say to anchor it.
    expect(evaluateApproval(loose, edit, editArgs('Old Drafts/x', ''), false, ['Old Drafts/x']).decision).toBe('allow');
  });

  test('patterns are case-insensitive', () => {
    expect(evaluateApproval(config, edit, {}, false, ['drafts/x']).decision).toBe('allow');
  });
});

describe('several targets', () => {
  test('a deny pattern matching any one of them denies the call, naming the title and the rule', () => {
    const config = rules({ 'wiki-rename': { mode: 'auto', deny: ['^Private/'] } });
    expect(evaluateApproval(config, rename, {}, false, ['Notes', 'Private/diary', 'Index'])).toEqual({
      decision: 'deny',
      reason: 'denied by the rule /^Private\\// (it matches "Private/diary")',
    });
    expect(evaluateApproval(config, rename, {}, false, ['Notes', 'Index']).decision).toBe('allow');
  });

  test('an allow pattern approves only when every target matches some allow pattern', () => {
    const config = rules({ 'wiki-rename': { allow: ['^Drafts/', '^Scratch$'] } });
    expect(evaluateApproval(config, rename, {}, false, ['Drafts/a', 'Drafts/b']).decision).toBe('allow');
    expect(evaluateApproval(config, rename, {}, false, ['Drafts/a', 'Scratch'])).toEqual({
      decision: 'allow',
      reason: 'allowed by the rules /^Drafts\\//, /^Scratch$/',
      rule: { kind: 'allow', tool: 'wiki-rename', patterns: ['^Drafts/', '^Scratch$'], on: 'titles' },
    });
    expect(evaluateApproval(config, rename, {}, false, ['Drafts/a', 'Diary']).decision).toBe('confirm');
    expect(evaluateApproval(config, rename, {}, false, ['Diary', 'Drafts/a']).decision).toBe('confirm');
  });

  test('a call with no targets is not allowed by a pattern', () => {
    const config = rules({ 'wiki-edit': { allow: ['.*'] } });
    expect(evaluateApproval(config, edit, {}, false, []).decision).toBe('confirm');
  });

  test('deny beats allow for the same title', () => {
    const config = rules({ 'wiki-edit': { allow: ['^Drafts/'], deny: ['secret'] } });
    expect(evaluateApproval(config, edit, {}, false, ['Drafts/secret plan']).decision).toBe('deny');
  });
});

describe("the '*' rule", () => {
  test("its deny patterns beat a tool's own allow pattern", () => {
    const config = rules({ '*': { deny: ['^Private/'] }, 'wiki-edit': { mode: 'auto', allow: ['.*'] } });
    expect(evaluateApproval(config, edit, {}, true, ['Private/diary'])).toEqual({
      decision: 'deny',
      reason: 'denied by the rule /^Private\\// (it matches "Private/diary")',
    });
    expect(evaluateApproval(config, edit, {}, false, ['Notes']).decision).toBe('allow');
  });

  test('its allow patterns apply only to tools without their own allow list', () => {
    const config = rules({ '*': { allow: ['^Drafts/'] }, 'wiki-edit': { allow: ['^Inbox/'] } });
    expect(evaluateApproval(config, edit, {}, false, ['Drafts/x']).decision).toBe('confirm');
    expect(evaluateApproval(config, edit, {}, false, ['Inbox/x']).decision).toBe('allow');
    expect(evaluateApproval(config, rename, {}, false, ['Drafts/x']).decision).toBe('allow');
    // A rule that only sets a mode keeps the '*' allow list; an empty own list drops it.
    const modeOnly = rules({ '*': { allow: ['^Drafts/'] }, 'wiki-edit': { mode: 'confirm' } });
    expect(evaluateApproval(modeOnly, edit, {}, false, ['Drafts/x']).decision).toBe('allow');
    const emptied = rules({ '*': { allow: ['^Drafts/'] }, 'wiki-edit': { allow: [] } });
    expect(evaluateApproval(emptied, edit, {}, false, ['Drafts/x']).decision).toBe('confirm');
  });
});

describe('tools without targets: the patterns test their arguments as JSON', () => {
  test('allow and deny patterns match the serialized arguments', () => {
    const config = rules({ 'send-note': { allow: ['"to":"me"'], deny: ['password'] } });
    expect(evaluateApproval(config, userTool, { to: 'me', text: 'hi' })).toEqual({
      decision: 'allow',
      reason: 'allowed by the rule /"to":"me"/',
      rule: { kind: 'allow', tool: 'send-note', patterns: ['"to":"me"'], on: 'arguments' },
    });
    expect(evaluateApproval(config, userTool, { to: 'you', text: 'hi' }).decision).toBe('confirm');
    expect(evaluateApproval(config, userTool, { to: 'me', text: 'my Password' })).toEqual({
      decision: 'deny',
      reason: 'denied by the rule /password/ (it matches the arguments)',
    });
  });

  test('the tool name is not part of what is matched', () => {
    const config = rules({ 'send-note': { allow: ['send-note'] }, '*': { deny: ['"tool"'] } });
    expect(evaluateApproval(config, userTool, { text: 'hi' }).decision).toBe('confirm');
    expect(evaluateApproval(config, userTool, { text: 'hi' }, false, undefined).decision).toBe('confirm');
  });

  test('missing arguments are matched as {}', () => {
    const config = rules({ 'send-note': { allow: ['^\\{\\}$'] } });
    expect(evaluateApproval(config, userTool, undefined).decision).toBe('allow');
  });

  test('a tool that could not tell its targets (null): deny patterns test the arguments, no allow pattern applies', () => {
    const config = rules({ 'wiki-edit': { allow: ['.*'], deny: ['Private/'] } });
    expect(evaluateApproval(config, edit, editArgs('Drafts/x', ''), false, null).decision).toBe('confirm');
    expect(evaluateApproval(config, edit, editArgs('Private/x', ''), false, null)).toEqual({
      decision: 'deny',
      reason: 'denied by the rule /Private\\// (it matches the arguments)',
    });
  });
  test('a read whose titles cannot be known before it runs (a search by meaning) needs confirmation where deny rules apply', () => {
    const search = { name: 'wiki-search', access: 'read' as const, defaultMode: 'auto' as const };
    const args = { query: 'salary of my colleagues', mode: 'semantic' };
    expect(evaluateApproval(rules({ 'wiki-search': { deny: ['^Private/'] } }), search, args, false, null)).toEqual({
      decision: 'confirm',
      reason: 'deny rules apply and the titles this call reaches cannot be known before it runs',
    });
    expect(evaluateApproval(rules({ '*': { deny: ['^Private/'] } }), search, args, false, null).decision).toBe('confirm');
    // Without deny rules there is nothing to protect: the tool's own mode.
    expect(evaluateApproval(rules({}), search, args, false, null).decision).toBe('allow');
  });
});

describe('order: deny → allow → allowed in this chat → mode', () => {
  test('"allow in this chat" beats the mode but not a deny pattern', () => {
    const config = rules({ 'wiki-edit': { mode: 'confirm', deny: ['^Private/'] } });
    expect(evaluateApproval(config, edit, {}, true, ['Notes'])).toEqual({
      decision: 'allow',
      reason: 'allowed in this chat by the user',
      rule: { kind: 'chat', tool: 'wiki-edit' },
    });
    expect(evaluateApproval(config, edit, {}, true, ['Private/x']).decision).toBe('deny');
  });

  test('without a matching pattern the mode decides; writes confirm and reads run by default', () => {
    expect(evaluateApproval(rules({ 'wiki-edit': { mode: 'auto', allow: ['^Drafts/'] } }), edit, {}, false, ['Diary']).decision).toBe('allow');
    expect(evaluateApproval({}, edit, {}, false, ['Diary']).decision).toBe('confirm');
    expect(evaluateApproval({}, { name: 'wiki-read', access: 'read' }, {}, false, ['Diary']).decision).toBe('allow');
  });
});

test('hasPatterns: whether the targets need to be worked out at all', () => {
  expect(hasPatterns({}, 'wiki-edit')).toBe(false);
  expect(hasPatterns(rules({ 'wiki-edit': { mode: 'auto' } }), 'wiki-edit')).toBe(false);
  expect(hasPatterns(rules({ 'wiki-edit': { allow: ['x'] } }), 'wiki-edit')).toBe(true);
  expect(hasPatterns(rules({ 'wiki-edit': { allow: ['x'] } }), 'wiki-read')).toBe(false);
  expect(hasPatterns(rules({ '*': { deny: ['x'] } }), 'wiki-read')).toBe(true);
  expect(hasPatterns(rules({ '*': { allow: ['x'] }, 'wiki-read': { allow: [] } }), 'wiki-read')).toBe(false);
});

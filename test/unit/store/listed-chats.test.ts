// Which chats the user sees listed has one definition (store/listed-chats.ts); wikitext's lists
// spell it in one place too (the global function ai.chats.listed), and the two agree.
import fs from 'node:fs';
import path from 'node:path';
import { isUnlistedChat, LISTED_CHAT_STEPS } from '../../../src/agent/store/listed-chats';

test('a sub-agent chat and a hidden chat are not listed; any other chat is', () => {
  expect(isUnlistedChat({ agent: 'A', 'agent-parent': 'Parent' })).toBe(true);
  expect(isUnlistedChat({ agent: 'A', 'agent-hidden': 'yes' })).toBe(true);
  expect(isUnlistedChat({ agent: 'A', 'agent-parent': '', 'agent-hidden': '' })).toBe(false);
  expect(isUnlistedChat({ agent: 'A' })).toBe(false);
  expect(isUnlistedChat(undefined)).toBe(false);
});

test("wikitext's ai.chats.listed keeps the same chats as LISTED_CHAT_STEPS", () => {
  const tid = fs.readFileSync(path.resolve(__dirname, '../../../src/agent/ui/chat-globals.tid'), 'utf8');
  const body = /^\\function ai\.chats\.listed\(\) (.*)$/m.exec(tid)?.[1];
  expect(body).toBe(`[has[agent]!has[draft.of]${LISTED_CHAT_STEPS}]`);
});

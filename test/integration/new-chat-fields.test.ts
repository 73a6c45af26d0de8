// A new chat starts the same wherever it is made: wikitext's New chat actions (the global
// procedure ai-new-chat, ui/chat-globals.tid) write the agent and the status that TypeScript's
// newChatFields (store/new-chat.ts) writes.
import { newChatFields, NEW_CHAT_STATUS } from '../../src/agent/store/new-chat';
import { bootWiki, type TW } from '../helpers/tw';

let $tw: TW;

beforeAll(async () => {
  $tw = await bootWiki([{ title: '$:/config/tiddlyagent/default-agent', text: '$:/demo/agents/offline-demo' }]);
});

function run(actions: string): void {
  const parser = $tw.wiki.parseText(
    'text/vnd.tiddlywiki',
    `\\import [[$:/plugins/tiddlyagent/agent/chat-globals]]\n<$navigator story="$:/StoryList">${actions}</$navigator>`,
  );
  const widget = $tw.wiki.makeWidget(parser, { document: $tw.fakeDocument });
  widget.render($tw.fakeDocument.createElement('div'), null);
  widget.invokeActions(widget, {});
}

test('<<ai-new-chat>> makes the chat newChatFields describes, opens it and names it for its composer', () => {
  run('<$transclude $variable="ai-new-chat" base="Fresh chat" agent="$:/demo/agents/offline-demo"/>');
  const fields = $tw.wiki.getTiddler('Fresh chat').fields;
  const expected = newChatFields('Fresh chat', '$:/demo/agents/offline-demo');
  expect(fields['agent-status']).toBe(NEW_CHAT_STATUS);
  expect({ title: fields.title, agent: fields.agent, 'agent-status': fields['agent-status'] }).toEqual({
    title: expected.title,
    agent: expected.agent,
    'agent-status': expected['agent-status'],
  });
  expect(fields['agent-draft-attachments']).toBeUndefined();
  expect($tw.wiki.getTiddlerText('$:/temp/tiddlyagent/new-chat')).toBe('Fresh chat');
  expect($tw.wiki.getTiddlerList('$:/StoryList')[0]).toBe('Fresh chat');
});

test('attachments wait in its input; remember="no" leaves the composer alone', () => {
  $tw.wiki.deleteTiddler('$:/temp/tiddlyagent/new-chat');
  run('<$transclude $variable="ai-new-chat" base="Garden chat" agent="A" attachments="[[Garden plan]]" remember="no"/>');
  const fields = $tw.wiki.getTiddler('Garden chat').fields;
  expect(fields['agent-draft-attachments']).toBe('[[Garden plan]]');
  expect($tw.wiki.tiddlerExists('$:/temp/tiddlyagent/new-chat')).toBe(false);
});

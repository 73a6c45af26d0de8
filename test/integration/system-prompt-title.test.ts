// The shipped agents name the wiki in their system prompt from $:/SiteTitle: a title saved with
// a stray newline or spaces (as a .tid file easily is) must not end up inside the quotes.
import { agentLib, bootWiki, type TW } from '../helpers/tw';

let $tw: TW;
let lib: ReturnType<typeof agentLib>;
beforeAll(async () => {
  $tw = await bootWiki([{ title: '$:/SiteTitle', text: '  My garden notes \n' }]);
  lib = agentLib($tw);
});

test.each(['wiki-assistant', 'researcher'])('the %s names the wiki without stray whitespace', (name) => {
  const store = new lib.ChatStore(lib.createTiddlyWikiPort($tw.wiki));
  const agent = `$:/plugins/tiddlyagent/agent/agents/${name}`;
  $tw.wiki.addTiddler({ title: `Title chat ${name}`, agent });
  expect(store.renderSystemPrompt(agent, `Title chat ${name}`)).toContain('TiddlyWiki "My garden notes"');
});

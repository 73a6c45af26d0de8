// The UI's words follow the wiki's language: <<ai-lingo>> in wikitext and lingo() in the
// chat widget read the zh-Hans translation while $:/language names zh-Hans, and fall back to
// English for a key without one.
import { bootWiki, type TW } from '../helpers/tw';
import { lingo } from '../../src/agent/ui/lingo';

let $tw: TW;
beforeAll(async () => {
  $tw = await bootWiki();
});

function render(text: string): string {
  // The page template imports the globals ($:/core/config/GlobalImportFilter); so does this.
  return $tw.wiki.renderText('text/plain', 'text/vnd.tiddlywiki', `\\import [subfilter{$:/core/config/GlobalImportFilter}]\n${text}`);
}

test('English by default, Chinese while $:/language is zh-Hans, English for an untranslated key', () => {
  $tw.wiki.deleteTiddler('$:/language');
  expect(render('<<ai-lingo "Send">>')).toBe('Send');
  expect(lingo($tw.wiki, 'Send')).toBe('Send');
  $tw.wiki.addTiddler({ title: '$:/language', text: '$:/languages/zh-Hans' });
  expect(render('<<ai-lingo "Send">>')).toBe('发送');
  expect(lingo($tw.wiki, 'Send')).toBe('发送');
  $tw.wiki.addTiddler({ title: '$:/plugins/tiddlyagent/agent/language/OnlyEnglish', text: 'Only English' });
  expect(render('<<ai-lingo "OnlyEnglish">>')).toBe('Only English');
  expect(lingo($tw.wiki, 'OnlyEnglish')).toBe('Only English');
  $tw.wiki.deleteTiddler('$:/language');
});

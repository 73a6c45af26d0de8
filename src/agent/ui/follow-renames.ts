/*\
A renamed chat stays open: when a chat in the story river is gone and a chat says it was
renamed from it (`agent-renamed-from`, written by runner/services/chat-move.ts), the story shows the
new title in its place. One mechanism for every rename: the user's (Chats tab), the automatic
title after a first turn, in this page or on the server (the push channel brings both tiddlers).
Only deletions of titles in the story are looked at, through the field index.
\*/
import type { IChangedTiddlers } from 'tiddlywiki';

export const name = 'tiddlyagent-follow-renames';
export const platforms = ['browser'];
export const after = ['story'];
export const synchronous = true;

const STORY = '$:/StoryList';

export function startup(): void {
  $tw.wiki.addEventListener('change', (changes: IChangedTiddlers) => {
    const gone = Object.keys(changes).filter((title) => changes[title]?.deleted);
    if (!gone.length) return;
    const story = $tw.wiki.getTiddlerList(STORY);
    let next = story;
    for (const title of gone) {
      const at = next.indexOf(title);
      if (at < 0) continue;
      const renamed = $tw.wiki.filterTiddlers('[field:agent-renamed-from<old>has[agent]]', $tw.rootWidget.makeFakeWidgetWithVariables({ old: title }))[0];
      if (!renamed) continue;
      next = next.slice();
      if (next.includes(renamed)) next.splice(at, 1);
      else next.splice(at, 1, renamed);
    }
    if (next !== story) $tw.wiki.addTiddler(new $tw.Tiddler($tw.wiki.getTiddler(STORY) ?? {}, { title: STORY, list: next }));
  });
}

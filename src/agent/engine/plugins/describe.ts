/*\
Built-in plugin: what the wiki's plugins tell an AI about themselves, after the convention of
TiddlyWiki issue 9378. Tiddlers tagged `$:/tags/AI/Prompt/Describe` (rendered to plain text,
each under its title) and the list of `$:/tags/AI/Prompt/DataSource` tiddlers (whose text says
what the data is and whose `filter` field selects it) go into one protected system section
right after the system prompt. No such tiddlers, no section. Tiddlers hidden from the agent
(visibility.ts) do not exist in the agent's view this reads; drafts are left out; shadow
tiddlers count, as plugins ship them.
\*/
import type { WikiPort } from '../../store/wiki-port';
import type { EnginePlugin } from '../hooks';

export const DESCRIBE_TAG = '$:/tags/AI/Prompt/Describe';
export const DATA_SOURCE_TAG = '$:/tags/AI/Prompt/DataSource';

export const describePlugin: EnginePlugin = {
  name: 'describe',
  apply(hooks) {
    hooks.processPrompts.tap('describe', (build, ctx) => {
      const content = describeSection(ctx.store.wiki.agentView(), ctx.tools.has('wiki-read'));
      if (!content) return;
      const system = build.sections.findIndex((section) => section.id === 'system');
      build.sections.splice(system + 1, 0, { id: 'describe', kind: 'system', protected: true, messages: [{ role: 'system', content }] });
    });
  },
};

/** The section's text, or '' when the wiki has no Describe or DataSource tiddlers. */
export function describeSection(wiki: WikiPort, canRead: boolean): string {
  const tagged = (tag: string) => wiki.filter('[all[shadows+tiddlers]tag<tag>!has[draft.of]]', { tag });
  const describes = tagged(DESCRIBE_TAG);
  const sources = tagged(DATA_SOURCE_TAG);
  if (!describes.length && !sources.length) return '';
  const parts: string[] = [];
  if (describes.length) {
    parts.push(
      `Documentation from this wiki's plugins (tiddlers tagged ${DESCRIBE_TAG}): how they work and how to use their data. Follow it where it applies to the user's request.`,
    );
    for (const title of describes) {
      let text: string;
      try {
        text = wiki.renderPlainText(title).trim();
      } catch (e) {
        text = `(could not be rendered: ${e instanceof Error ? e.message : String(e)})`;
      }
      parts.push(`<plugin-doc title=${JSON.stringify(title)}>\n# ${title}\n\n${text}\n</plugin-doc>`);
    }
  }
  if (sources.length) {
    const how = canRead
      ? 'data sources you can read with wiki-read: each one says what its data is, and its filter selects the data tiddlers'
      : 'data sources: each one says what its data is, and its filter selects the data tiddlers';
    const lines = sources.map((title) => {
      const filter = wiki.getFields(title)?.filter?.trim();
      return `- ${title}${filter ? ` (filter: ${filter})` : ''}`;
    });
    parts.push([`Tiddlers tagged ${DATA_SOURCE_TAG}, ${how}:`, ...lines].join('\n'));
  }
  return parts.join('\n\n');
}

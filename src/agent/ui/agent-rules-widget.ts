/*\
<$ai-agent-rules form="approval"|"limits" agent=…/>: an agent's approval rules or its limits
as a form in the agent settings (ui/settings/approval-form.ts, limits-form.ts, required on
first use). The form writes the agent's fields itself; it is drawn again only when one of the
fields it shows changes in another way (the JSON editor, another page) or the language does,
so typing in it never loses the cursor.
\*/
import { widget as Widget } from '$:/core/modules/widgets/widget.js';
import type { IChangedTiddlers } from 'tiddlywiki';
import type * as Forms from './settings/rule-forms';
import { lingo, LANGUAGE_SETTING } from './lingo';
import { parseTitleList } from '../store/wiki-port';

/** The fields each form shows (and agent-tools, the tools it offers). */
const FIELDS: Record<string, string[]> = {
  approval: ['agent-approval', 'agent-tools'],
  limits: ['agent-tool-timeout', 'agent-tool-timeouts', 'agent-retries', 'agent-retry-delay', 'agent-retry-max-delay', 'agent-tools'],
};

let forms: typeof Forms | undefined;
let ids = 0;

class AgentRulesWidget extends Widget {
  private agent = '';
  private form = 'approval';
  /** The fields as the form last read or wrote them. */
  private seen = new Map<string, string>();

  override render(parent: Element, nextSibling: Element | null): void {
    this.parentDomNode = parent;
    this.computeAttributes();
    this.agent = this.getAttribute('agent', this.getVariable('currentTiddler'));
    this.form = this.getAttribute('form', 'approval') === 'limits' ? 'limits' : 'approval';
    const doc = this.document as unknown as Document;
    forms ??= require('$:/plugins/tiddlyagent/agent/ui/settings/rule-forms.js') as typeof Forms;
    const wiki = this.wiki;
    const read = (field: string) => {
      const value = wiki.getTiddler(this.agent)?.fields[field];
      return typeof value === 'string' ? value : undefined;
    };
    this.seen = new Map((FIELDS[this.form] ?? []).map((f) => [f, read(f) ?? '']));
    const host = {
      doc,
      words: (key: string) => lingo(wiki, key),
      read,
      write: (field: string, value: string) => {
        const tiddler = wiki.getTiddler(this.agent);
        if (!tiddler || (tiddler.fields[field] ?? '') === value) return;
        this.seen.set(field, value);
        wiki.addTiddler(new $tw.Tiddler(tiddler, { [field]: value }));
      },
      titles: forms.wikiTitles(wiki as never),
      tools: parseTitleList(read('agent-tools') ?? ''),
      id: () => `tc-ai-rules-${++ids}`,
    };
    const node = this.form === 'limits' ? forms.limitsForm(host) : forms.approvalForm(host);
    parent.insertBefore(node, nextSibling);
    this.domNodes.push(node);
  }

  override refresh(changed: IChangedTiddlers): boolean {
    const attributes = this.computeAttributes();
    const fields = this.wiki.getTiddler(this.agent)?.fields;
    const moved = changed[this.agent] && [...this.seen].some(([field, value]) => ((fields?.[field] as string | undefined) ?? '') !== value);
    if (attributes.agent || attributes.form || changed[LANGUAGE_SETTING] || moved) {
      this.refreshSelf();
      return true;
    }
    return false;
  }
}

export { AgentRulesWidget as 'ai-agent-rules' };

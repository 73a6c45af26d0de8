/*\
The Add trigger form's work (ui/add-trigger-widget.ts says what each action does), a library
module the widget requires only when the form is used: TiddlyWiki executes every widget module
when a page loads, so the widget itself stays small.
\*/
import type { Wiki } from 'tiddlywiki';
import { lib, page } from './library';
import { lingo } from './lingo';
import { requestErrorText } from './runner-error';
import { CONFIG, configValue } from '../store/config';
import { formatUsd, priceTokens } from '../store/cost';
import { isUnlistedChat } from '../store/listed-chats';
import { modelFacts, parseModelFactsTable, type ModelFactsTable } from '../store/model-facts';
import { newChatFields } from '../store/new-chat';
import { AGENT_TAG, TRIGGER_TAG } from '../store/tags';

/** Where the user's own triggers are made. */
export const USER_TRIGGER_PREFIX = '$:/tiddlyagent/triggers/';

type Fields = Record<string, unknown>;

/** The form of one state tiddler in one wiki. */
export class TriggerForm {
  constructor(private readonly wiki: Wiki) {}

  private words(key: string, values: Record<string, string> = {}): string {
    return Object.entries(values).reduce((text, [name, v]) => text.split(`$${name}$`).join(v), lingo(this.wiki, key));
  }

  private setState(state: string, fields: Fields): void {
    this.wiki.addTiddler(new $tw.Tiddler(this.wiki.getTiddler(state) ?? { title: state }, fields));
  }

  /** Make the trigger, or say in the state's `error` what to fix; returns whether it was made. */
  add(state: string): boolean {
    const wiki = this.wiki;
    const fields = (wiki.getTiddler(state)?.fields ?? {}) as Fields;
    const value = (name: string) => String(fields[name] ?? '').trim();
    const fail = (key: string, values?: Record<string, string>) => {
      this.setState(state, { error: this.words(key, values) });
      return false;
    };
    let chat = value('chat');
    let agent = '';
    if (chat) {
      const chatFields = wiki.getTiddler(chat)?.fields;
      if (chatFields?.agent === undefined || isUnlistedChat(chatFields)) return fail('Trigger/Error/chat');
    } else {
      agent = value('new-agent') || configValue(wiki, CONFIG.defaultAgent);
      if (!wiki.getTiddler(agent)?.hasTag(AGENT_TAG)) return fail('Trigger/Error/agent');
      chat = wiki.generateNewTitle(lingo(wiki, 'NewChat/BaseTitle') || 'Chat', {});
    }
    const title = `${USER_TRIGGER_PREFIX}${chat}/${Date.now().toString(36)}`;
    const trigger: Record<string, string> = { title, tags: `[[${TRIGGER_TAG}]]`, 'agent-chat': chat, 'trigger-enabled': 'yes', 'trigger-run-count': '0' };
    for (const [field, name] of [
      ['trigger-filter', 'filter'],
      ['trigger-message', 'message'],
      ['trigger-debounce', 'debounce'],
      ['trigger-max-wait', 'max-wait'],
      ['caption', 'caption'],
    ] as const)
      if (value(name)) trigger[field] = value(name);
    const L = lib();
    try {
      L.parseTrigger(trigger);
    } catch (e) {
      if (!(e instanceof L.TriggerError)) throw e;
      return lingo(wiki, `Trigger/Error/${e.reason}`) ? fail(`Trigger/Error/${e.reason}`) : fail('Trigger/Error/other', { detail: e.message });
    }
    const filterError = wiki.filterTiddlers(trigger['trigger-filter']!).find((t) => t.startsWith('Filter error:'));
    if (filterError) return fail('Trigger/Error/filter-invalid', { detail: filterError });
    if (agent) wiki.addTiddler(newChatFields(chat, agent, { ...wiki.getCreationFields(), ...wiki.getModificationFields() }));
    wiki.addTiddler(new $tw.Tiddler(wiki.getCreationFields(), trigger, wiki.getModificationFields()));
    wiki.addTiddler({ title: state, added: title, 'added-chat': chat });
    return true;
  }

  estimate(state: string): void {
    const wiki = this.wiki;
    const fields = (wiki.getTiddler(state)?.fields ?? {}) as Fields;
    const chat = String(fields.chat ?? '').trim();
    if (!chat || wiki.getTiddler(chat)?.fields.agent === undefined) {
      this.setState(state, { estimate: this.words('AddTrigger/EstimateNeedsChat') });
      return;
    }
    const message = String(fields.message ?? '');
    this.setState(state, { estimate: this.words('AddTrigger/Estimating') });
    page()
      .getRunner()
      .query({ kind: 'preview', chat })
      .then(
        (preview) => {
          const tokens = preview.total + Math.ceil(message.length / 4);
          const usd = priceTokens(this.priceOf(chat, preview.model), tokens, 0);
          const values = { tokens: String(tokens), model: preview.model };
          this.setState(state, {
            estimate:
              usd === undefined ? this.words('AddTrigger/EstimateUnpriced', values) : this.words('AddTrigger/Estimate', { ...values, cost: formatUsd(usd) }),
          });
        },
        (e: unknown) => this.setState(state, { estimate: requestErrorText(wiki, e) }),
      );
  }

  /** The input price of `model` for the chat's agent's provider profile (presets, then its `model-facts`). */
  private priceOf(chat: string, model: string) {
    const agent = String(this.wiki.getTiddler(chat)?.fields.agent ?? '');
    const profile = (this.wiki.getTiddler(String(this.wiki.getTiddler(agent)?.fields['agent-provider'] ?? ''))?.fields ?? {}) as Fields;
    let table: ModelFactsTable | undefined;
    try {
      table = profile['model-facts'] ? parseModelFactsTable(String(profile['model-facts'])) : undefined;
    } catch {
      table = undefined; // a profile whose facts cannot be read: the presets' price
    }
    return modelFacts({ 'model-facts': table }, model).price;
  }
}

/*\
<$action-ai-settings tab=providers|agents|search|mcp provider=… agent=… chat=… subject=…/>: opens
Control Panel → Settings → TiddlyAgent at that tab, with that provider profile or agent picked
(the getting-started guide's button, a setup error's link in a chat). With `chat` it works out
the place from the chat: `subject`, the agent or profile an error names (the message's
`error-tiddler`), else the chat's agent's provider, else the agent itself when that provider is
missing. Only UI state changes ($:/state/…): the settings themselves stay as they are.
\*/
import type { Wiki } from 'tiddlywiki';
import { ActionWidget } from './action-widget';

/** The core Control Panel's tab states (core/ui/ControlPanel.tid and ControlPanel/Settings.tid). */
const CONTROL_PANEL_TAB = '$:/state/tab-1749438307';
const SETTINGS_TAB = '$:/state/tab--697582678';
const SETTINGS = '$:/plugins/tiddlyagent/agent/settings';
/** The TiddlyAgent settings' own states (ui/settings/*.tid). */
const OUR_TAB = '$:/state/tiddlyagent/settings/tab';
const PICKED_PROVIDER = '$:/state/tiddlyagent/settings/provider';
const PICKED_AGENT = '$:/state/tiddlyagent/settings/agent';
const AGENT_TAG = '$:/tags/AI/Agent';
const PROVIDER_TAG = '$:/tags/AI/Provider';

export interface SettingsPlace {
  tab: string;
  provider?: string;
  agent?: string;
}

/** What placeForChat reads of the wiki: a tiddler's tags and a field's text ('' when missing). */
export interface PlaceSource {
  tags(title: string): string[];
  field(title: string, name: string): string;
}

/** Where a chat's setup problem is fixed: the tiddler the error names, else the chat's agent's provider, else the agent. */
export function placeForChat(wiki: PlaceSource, chat: string, subject = ''): SettingsPlace {
  const tagged = (title: string, tag: string) => !!title && wiki.tags(title).includes(tag);
  const agent = wiki.field(chat, 'agent').trim();
  if (tagged(subject, AGENT_TAG)) return { tab: 'agents', agent: subject };
  if (tagged(subject, PROVIDER_TAG)) return { tab: 'providers', provider: subject, ...(tagged(agent, AGENT_TAG) ? { agent } : {}) };
  if (!tagged(agent, AGENT_TAG)) return { tab: 'agents' };
  const provider = wiki.field(agent, 'agent-provider').trim();
  return tagged(provider, PROVIDER_TAG) ? { tab: 'providers', provider, agent } : { tab: 'agents', agent };
}

/** Open the settings at `place`: the tab states, the picks, then the Control Panel in the story. */
export function openSettings(wiki: Wiki, place: SettingsPlace, navigate: (title: string) => void): void {
  const set = (title: string, text: string) => wiki.addTiddler({ title, text });
  set(CONTROL_PANEL_TAB, '$:/core/ui/ControlPanel/Settings');
  set(SETTINGS_TAB, SETTINGS);
  set(OUR_TAB, `${SETTINGS}/${place.tab}`);
  if (place.provider) set(PICKED_PROVIDER, place.provider);
  if (place.agent) set(PICKED_AGENT, place.agent);
  navigate('$:/ControlPanel');
}

class OpenSettingsWidget extends ActionWidget {
  override invokeAction(): boolean {
    const chat = this.getAttribute('chat', '');
    const wiki = this.wiki;
    const source: PlaceSource = {
      tags: (title) => (wiki.getTiddler(title)?.fields.tags as string[] | undefined) ?? [],
      field: (title, name) => wiki.getTiddler(title)?.getFieldString(name) ?? '',
    };
    const place: SettingsPlace = chat
      ? placeForChat(source, chat, this.getAttribute('subject', '').trim())
      : { tab: this.getAttribute('tab', 'providers'), provider: this.getAttribute('provider') || undefined, agent: this.getAttribute('agent') || undefined };
    openSettings(wiki, place, (title) => this.dispatchEvent({ type: 'tm-navigate', navigateTo: title }));
    return true;
  }
}

export { OpenSettingsWidget as 'action-ai-settings' };

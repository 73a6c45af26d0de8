/*\
<$action-ai-provider do=test|save-key|clear-key profile=… draft=… key=…/>, for the settings'
provider setup. `test` tests the profile where turns run (runner.testProvider) with the draft's
API, base URL and model, the key name `key` ('' = no key needed) and the key typed in the
setup's password input, and writes the outcome to `$:/temp/tiddlyagent/provider-test/<profile>`
(field `ok`: yes | no | testing; `problem`, `detail`, `models` as a title list, `model`: how the
model was checked; `key-withheld`), which the settings show in words. `save-key` puts the typed key into TiddlyWiki's password store and
empties the input; `clear-key` removes the stored key. A typed key lives only in the input (the
DOM) until then: never in a tiddler. Both touch `$:/temp/tiddlyagent/provider-keys`, so the
"key stored" line (filter `aikey`) is drawn again.
\*/
import { ActionWidget } from './action-widget';
import { page } from './library';

export const PROVIDER_TEST_PREFIX = '$:/temp/tiddlyagent/provider-test/';
export const KEYS_CHANGED = '$:/temp/tiddlyagent/provider-keys';

class ProviderActionWidget extends ActionWidget {
  override invokeAction(trigger: { domNodes?: unknown[] } | null): boolean {
    const what = this.getAttribute('do', 'test');
    const profile = this.getAttribute('profile', '');
    const keyName = this.getAttribute('key', '').trim();
    const input = keyInput(trigger?.domNodes?.[0], keyName);
    if (what === 'save-key' || what === 'clear-key') {
      if (!keyName || !$tw.browser) return true;
      const typed = input?.value.trim() ?? '';
      if (what === 'clear-key') $tw.utils.savePassword(keyName, '');
      else if (typed) $tw.utils.savePassword(keyName, typed);
      if (input) input.value = '';
      this.wiki.addTiddler({ title: KEYS_CHANGED, text: String(Date.now()) });
      return true;
    }
    if (!profile) return true;
    const draft = this.getAttribute('draft', '');
    const value = (field: string) => ((draft && this.wiki.getTiddler(draft)?.fields[field]) as string | undefined) ?? undefined;
    const title = `${PROVIDER_TEST_PREFIX}${profile}`;
    const wiki = this.wiki;
    wiki.addTiddler({ title, ok: 'testing' });
    page()
      .getRunner()
      .query({
        kind: 'provider-test',
        profile,
        api: value('api'),
        baseUrl: value('base-url'),
        model: value('default-model'),
        keyName: this.hasAttribute('key') ? keyName : undefined,
        apiKey: input?.value.trim() || undefined,
      })
      .then(
        (r) =>
          wiki.addTiddler({
            title,
            ok: r.ok ? 'yes' : 'no',
            problem: r.problem ?? '',
            detail: r.detail ?? '',
            models: $tw.utils.stringifyList(r.models),
            model: r.model ?? '',
            'key-withheld': r.keyWithheld ? 'yes' : '',
          }),
        (e: unknown) => wiki.addTiddler({ title, ok: 'no', problem: 'other', detail: e instanceof Error ? e.message : String(e) }),
      );
    return true;
  }
}

/** The password input of the provider setup the button sits in (the key is read from the page, never a tiddler). */
function keyInput(button: unknown, keyName: string): HTMLInputElement | null {
  if (!keyName || typeof document === 'undefined') return null;
  const from = button instanceof Element ? button.closest('.tc-ai-settings-provider') : null;
  return (from ?? document).querySelector<HTMLInputElement>(`input.tc-ai-settings-key-input[data-key="${CSS.escape(keyName)}"]`);
}

export { ProviderActionWidget as 'action-ai-provider' };

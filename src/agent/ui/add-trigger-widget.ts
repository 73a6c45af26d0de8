/*\
<$action-ai-add-trigger state="…" do="add|estimate"/>: the Background panel's Add trigger form
(ui/add-trigger.tid). Its values are fields of its state tiddler (chat, new-agent, filter,
message, debounce, caption).
- `add`: checked by the rules every trigger follows (schedules/trigger.ts parseTrigger; a filter
  TiddlyWiki cannot read is refused too); a value that could not run is said in plain words,
  in the user's language, in the state's `error` field, and nothing is written. Otherwise it
  creates the chat first when a new one was asked for, then `$:/tiddlyagent/triggers/<chat>/<id>`,
  tagged $:/tags/AI/Trigger, which the trigger watch picks up.
- `estimate`: a dry run of one run's cost, written to the state's `estimate` field: the prompt
  the chat's agent would send now (the runner's Show prompt, in this page or on the server)
  plus the message, at its model's input price (store/model-facts.ts); the reply's own tokens
  come on top. Nothing is sent to a model.
\*/
import type * as Form from '$:/plugins/tiddlyagent/agent/ui/add-trigger-form.js';
import { ActionWidget } from './action-widget';

class AddTriggerWidget extends ActionWidget {
  override invokeAction(): boolean {
    const state = this.getAttribute('state', '$:/temp/tiddlyagent/add-trigger');
    const { TriggerForm } = require('$:/plugins/tiddlyagent/agent/ui/add-trigger-form.js') as typeof Form;
    const form = new TriggerForm(this.wiki);
    if (this.getAttribute('do', 'add') === 'estimate') form.estimate(state);
    else form.add(state);
    return true;
  }
}

export { AddTriggerWidget as 'action-ai-add-trigger' };

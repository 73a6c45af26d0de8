/*\
Filter operator `aiprofile`, for the settings tab: what a provider profile says about itself.
Operand `problem`: why it cannot be used (a bad field, a bad `model-facts` entry; nothing when
it can); `facts`: one line per model it lists (its default first) with the window, output
limit, image support and prices the engine and the cost meter will use.
\*/
import { describeEach, type Source } from './fields-filter';
import { lib } from './library';
import { lingo } from './lingo';
import { modelFacts, type ModelFacts } from '../store/model-facts';

const dollars = (n: number) => `$${n >= 0.01 && Number(n.toFixed(2)) === n ? n.toFixed(2) : n}`;

/** One model's line, in the UI's words (`say`: the lingo of keys under Settings/Facts/). */
export function describeFacts(model: string, facts: ModelFacts, say: (key: string) => string): string {
  const count = (n: number | undefined) => (n === undefined ? say('Unknown') : String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ','));
  const images = say(facts.images === undefined ? 'ImagesUnknown' : facts.images ? 'Images' : 'NoImages');
  const price = facts.price ? say('Price').replace('$in$', dollars(facts.price.input)).replace('$out$', dollars(facts.price.output)) : say('PriceUnknown');
  return say('Line')
    .replace('$model$', model)
    .replace('$window$', count(facts.contextWindow))
    .replace('$output$', count(facts.maxOutput))
    .replace('$images$', images)
    .replace('$price$', price);
}

export function aiprofile(source: Source, operator: { operand: string }, options: { wiki: unknown }): string[] {
  const L = lib();
  return describeEach(source, L.createTiddlyWikiPort(options.wiki as never), (fields) => {
    let profile: ReturnType<typeof L.parseTiddler<typeof L.ProviderProfileSchema>> | undefined;
    try {
      profile = L.parseTiddler(L.ProviderProfileSchema, 'Provider profile', fields);
    } catch (e) {
      return operator.operand === 'problem' ? [e instanceof Error ? e.message : String(e)] : [];
    }
    if (operator.operand !== 'facts') return [];
    const models = [...new Set([profile['default-model'], ...profile.models].filter((m): m is string => !!m))];
    const say = (key: string) => lingo(options.wiki as never, `Settings/Facts/${key}`);
    return models.map((model) => describeFacts(model, modelFacts(profile, model), say));
  });
}

/*\
An approval rule in the user's words (the UI's language): "wiki-edit on tiddlers starting
with "Notes/"", "wiki-create runs without asking". The Always allow panel shows the rule it
will add this way, and a tool line the rule that let its call run.
\*/
import { patternMeaning } from '../engine/approval-rules';
import type { AllowingRule } from '../engine/approval';
import type { ChatContext } from './chat-context';

/** A lingo text with its `$name$` placeholders filled (as text: a `$` in a value stays a `$`). */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\$([a-z]+)\$/g, (whole, name: string) => values[name] ?? whole);
}

/** Titles as a short quoted list: the first five, then "…". */
export function quotedTitles(titles: string[]): string {
  const shown = titles.slice(0, 5).map((t) => `"${t}"`);
  return shown.join(', ') + (titles.length > 5 ? ', …' : '');
}

export function ruleWords(ctx: ChatContext, rule: AllowingRule): string {
  const tool = rule.tool === '*' ? ctx.lingo('Rule/AnyTool') : rule.tool;
  if (rule.kind === 'chat') return fill(ctx.lingo('Rule/InChat'), { tool });
  if (rule.kind === 'mode') return fill(ctx.lingo('Rule/Auto'), { tool });
  const what = rule.patterns.map((source) => {
    if (rule.on === 'arguments') return fill(ctx.lingo('Rule/Arguments'), { regex: source });
    const meaning = patternMeaning(source);
    if (meaning.kind === 'title') return fill(ctx.lingo('Rule/Title'), { title: meaning.title });
    if (meaning.kind === 'prefix') return fill(ctx.lingo('Rule/Prefix'), { prefix: meaning.prefix });
    return fill(ctx.lingo('Rule/Regex'), { regex: meaning.source });
  });
  return fill(ctx.lingo('Rule/On'), { tool, what: what.join(` ${ctx.lingo('Rule/Or')} `) });
}

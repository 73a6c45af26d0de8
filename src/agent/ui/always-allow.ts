/*\
"Always allow" on an approval card asks once, in the card: for what? This tiddler (the exact
titles the call touches), tiddlers whose title starts with a prefix the user sees and edits,
or every call of the tool. It shows the rule it will add in words, and as JSON one click
away, and only "Add the rule and allow" decides the call ("always" with that scope). A call
that touches no titles the card knows (a tool without targets) offers the whole tool only.
\*/
import { prefixProblem, scopedRule, suggestPrefix, type ApprovalScope } from '../engine/approval-rules';
import type { AllowingRule } from '../engine/approval';
import { confirmRow, el, type ChatContext } from './chat-context';
import { fill, quotedTitles, ruleWords } from './rule-words';

const PANEL = 'tc-ai-always';

/** Open the panel under the card's buttons, or close it when it is open. */
export function toggleAlwaysAllow(ctx: ChatContext, card: HTMLElement, opener: HTMLElement, message: string, tool: string): void {
  const open = card.querySelector(`.${PANEL}`);
  opener.setAttribute('aria-expanded', open ? 'false' : 'true');
  if (open) {
    open.remove();
    return;
  }
  const panel = alwaysPanel(ctx, message, tool, () => {
    panel.remove();
    opener.setAttribute('aria-expanded', 'false');
    opener.focus();
  });
  card.appendChild(panel);
  panel.querySelector<HTMLInputElement>('input:checked')?.focus();
}

function alwaysPanel(ctx: ChatContext, message: string, tool: string, close: () => void): HTMLElement {
  const doc = ctx.document;
  const titles = $tw.utils.parseStringArray(String(ctx.wiki.getTiddler(message)?.fields['approval-targets'] ?? '')) ?? [];
  const agentTitle = String(ctx.wiki.getTiddler(ctx.chat)?.fields.agent ?? '');
  const agentName = String(ctx.wiki.getTiddler(agentTitle)?.fields.caption ?? '') || agentTitle;

  const panel = el(doc, 'fieldset', `${PANEL} tc-ai-card`);
  panel.appendChild(el(doc, 'legend', 'tc-ai-card-title', fill(ctx.lingo('Approval/Always/Title'), { tool })));
  const { scope } = scopeChoices(ctx, panel, message, tool, titles, () => show());

  const problem = el(doc, 'div', 'tc-ai-always-problem');
  problem.setAttribute('role', 'alert');
  const words = el(doc, 'p', 'tc-ai-always-rule');
  const json = el(doc, 'details', 'tc-ai-tool-details tc-ai-always-json');
  json.appendChild(el(doc, 'summary', '', ctx.lingo('Approval/Always/Json')));
  const code = el(doc, 'pre', 'tc-ai-always-json-text');
  json.appendChild(code);
  const {
    row: buttons,
    confirm,
    cancel,
  } = confirmRow(
    ctx,
    { className: 'tc-ai-always-confirm', label: ctx.lingo('Approval/Always/Confirm'), action: 'always-confirm' },
    { className: 'tc-ai-always-cancel', action: 'always-cancel' },
  );
  for (const part of [problem, words, json, buttons]) panel.appendChild(part);

  function show(): void {
    const chosen = scope();
    const wrong = chosen.kind === 'prefix' ? prefixProblem(chosen.prefix, titles) : undefined;
    const why = { blank: 'Approval/Always/PrefixBlank', long: 'Approval/Always/PrefixLong', 'not-matching': 'Approval/Always/PrefixNotMatching' } as const;
    problem.textContent = wrong ? ctx.lingo(why[wrong]) : '';
    confirm.disabled = !!wrong;
    const fragment = scopedRule(tool, chosen, titles);
    const entry = fragment[tool]!;
    const rule: AllowingRule = entry.mode ? { kind: 'mode', tool } : { kind: 'allow', tool, patterns: entry.allow!, on: 'titles' };
    words.textContent = wrong ? '' : fill(ctx.lingo('Approval/Always/Rule'), { rule: ruleWords(ctx, rule), agent: agentName });
    code.textContent = JSON.stringify(fragment);
  }
  confirm.addEventListener('click', () => void ctx.request(ctx.runner().submit({ kind: 'decide', chat: ctx.chat, message, choice: 'always', scope: scope() })));
  cancel.addEventListener('click', close);
  panel.addEventListener('keydown', (event: Event) => {
    if ((event as KeyboardEvent).key === 'Escape') close();
  });
  show();
  return panel;
}

/**
 * The panel's scopes, one radio button each, the first chosen: the call's tiddlers (when it
 * names any), tiddlers whose title starts with a prefix the user edits, the whole tool.
 * `changed` runs whenever the choice or the prefix changes.
 */
function scopeChoices(
  ctx: ChatContext,
  panel: HTMLElement,
  message: string,
  tool: string,
  titles: string[],
  changed: () => void,
): { scope: () => ApprovalScope } {
  const doc = ctx.document;
  const choices: { kind: ApprovalScope['kind']; input: HTMLInputElement }[] = [];
  const option = (kind: ApprovalScope['kind'], label: string): HTMLLabelElement => {
    const row = el(doc, 'label', `tc-ai-always-option tc-ai-always-${kind}`) as HTMLLabelElement;
    const input = doc.createElement('input');
    input.type = 'radio';
    input.name = `ai-always-${message}`;
    input.value = kind;
    input.checked = !choices.length;
    row.appendChild(input);
    row.appendChild(doc.createTextNode(` ${label}`));
    choices.push({ kind, input });
    panel.appendChild(row);
    return row;
  };
  const prefix = doc.createElement('input');
  if (titles.length) {
    option('tiddler', fill(ctx.lingo(titles.length === 1 ? 'Approval/Always/Tiddler' : 'Approval/Always/Tiddlers'), { titles: quotedTitles(titles) }));
    const row = option('prefix', ctx.lingo('Approval/Always/Prefix'));
    prefix.type = 'text';
    prefix.className = 'tc-ai-always-prefix-input';
    prefix.value = suggestPrefix(titles);
    prefix.setAttribute('aria-label', ctx.lingo('Approval/Always/PrefixLabel'));
    // Typing a prefix chooses "tiddlers like it".
    prefix.addEventListener('input', () => {
      choices.find((c) => c.kind === 'prefix')!.input.checked = true;
      changed();
    });
    row.appendChild(doc.createTextNode(' '));
    row.appendChild(prefix);
  }
  option('tool', fill(ctx.lingo('Approval/Always/Tool'), { tool }));
  for (const { input } of choices) input.addEventListener('change', changed);
  return {
    scope: () => {
      const kind = choices.find((c) => c.input.checked)?.kind ?? 'tool';
      return kind === 'prefix' ? { kind, prefix: prefix.value } : { kind };
    },
  };
}

/*\
The agent's approval rules as a form: per tool (or "*", every tool) the mode and the allow
and deny title patterns, rows to add and remove, and under each pattern the tiddlers it
matches, updated as the user types (pattern-matches.ts: hidden tiddlers are never listed; a
pattern that is not a regular expression says so and is not saved). Every change writes the
same `agent-approval` JSON the engine reads (engine/approval.ts), which stays the contract:
the settings keep it editable as JSON too. Keys of a rule the form does not know are kept.
\*/
import { readRawConfig } from '../../engine/approval-rules';
import { el } from '../chat-context';
import { button, select, showProblem, textInput, toolLabel, type FormHost } from './form-host';
import { patternMatches } from './pattern-matches';

type Mode = '' | 'auto' | 'confirm';
type Which = 'allow' | 'deny';

interface Entry {
  tool: string;
  mode: Mode;
  allow: string[];
  deny: string[];
  /** What else the rule holds, kept as it is. */
  rest: Record<string, unknown>;
}

const FIELD = 'agent-approval';

/** The rules as entries, or undefined when the JSON is not rules the form can show (the JSON editor must fix it). */
function readEntries(json: string | undefined): Entry[] | undefined {
  const raw = readRawConfig(json);
  if (!raw) return undefined;
  const entries: Entry[] = [];
  const isList = (v: unknown): v is string[] | undefined => v === undefined || (Array.isArray(v) && v.every((p) => typeof p === 'string'));
  for (const [tool, rule] of Object.entries(raw)) {
    if (!rule || typeof rule !== 'object' || Array.isArray(rule)) return undefined;
    const { mode, allow, deny, ...rest } = rule as Record<string, unknown>;
    if (!(mode === undefined || mode === 'auto' || mode === 'confirm') || !isList(allow) || !isList(deny)) return undefined;
    entries.push({ tool, mode: mode ?? '', allow: [...(allow ?? [])], deny: [...(deny ?? [])], rest });
  }
  return entries;
}

/** A pattern the engine can use: not empty, a regular expression. */
function usable(pattern: string): boolean {
  if (!pattern) return false;
  try {
    new RegExp(pattern, 'i');
    return true;
  } catch {
    return false;
  }
}

/** The entries as `agent-approval` JSON ('' for no rules); empty and invalid patterns are left out. */
function writeEntries(entries: Entry[]): string {
  if (!entries.length) return '';
  const config: Record<string, Record<string, unknown>> = {};
  for (const e of entries) {
    const rule: Record<string, unknown> = { ...e.rest };
    if (e.mode) rule.mode = e.mode;
    for (const which of ['allow', 'deny'] as const) {
      const patterns = e[which].filter(usable);
      if (patterns.length) rule[which] = patterns;
    }
    config[e.tool] = rule;
  }
  return JSON.stringify(config);
}

export function approvalForm(host: FormHost): HTMLElement {
  const { doc, words } = host;
  const root = el(doc, 'div', 'tc-ai-rules');
  const entries = readEntries(host.read(FIELD));
  if (!entries) {
    root.setAttribute('data-broken', 'yes');
    root.appendChild(el(doc, 'p', 'tc-ai-rules-broken', words('Settings/Rules/Broken')));
    return root;
  }
  const list = el(doc, 'div', 'tc-ai-rules-list');
  const adder = el(doc, 'div', 'tc-ai-rules-add');
  const save = () => host.write(FIELD, writeEntries(entries));
  const draw = (focus?: Entry) => {
    list.textContent = '';
    if (!entries.length) list.appendChild(el(doc, 'p', 'tc-ai-rules-none', words('Settings/Rules/None')));
    for (const entry of entries) {
      const view = entryView(host, entry, save, () => {
        entries.splice(entries.indexOf(entry), 1);
        save();
        draw();
      });
      list.appendChild(view);
      if (entry === focus) view.querySelector('select')?.focus();
    }
    drawAdder(host, adder, entries, (tool) => {
      const entry: Entry = { tool, mode: '', allow: [], deny: [], rest: {} };
      entries.push(entry);
      save();
      draw(entry);
    });
  };
  draw();
  root.appendChild(list);
  root.appendChild(adder);
  return root;
}

/** "Add a rule for [tool] [Add]": the tools with no rule yet, every tool ("*") first. */
function drawAdder(host: FormHost, adder: HTMLElement, entries: Entry[], add: (tool: string) => void): void {
  adder.textContent = '';
  const taken = new Set(entries.map((e) => e.tool));
  const free = ['*', ...host.tools].filter((t, i, all) => !taken.has(t) && all.indexOf(t) === i);
  if (!free.length) return;
  const label = host.words('Settings/Rules/AddFor');
  const pick = select(
    host,
    'tc-ai-rules-add-tool',
    label,
    free.map((t) => [t, toolLabel(host, t)]),
    free[0]!,
  );
  adder.appendChild(el(host.doc, 'span', 'tc-ai-rules-add-label', `${label} `));
  adder.appendChild(pick);
  adder.appendChild(button(host, 'tc-ai-rules-add-button', host.words('Settings/Rules/Add'), () => add(pick.value)));
}

/** One tool's rule: its mode, its allow and deny patterns, and Remove. */
function entryView(host: FormHost, entry: Entry, save: () => void, remove: () => void): HTMLElement {
  const { doc, words } = host;
  const box = el(doc, 'fieldset', 'tc-ai-rule');
  box.setAttribute('data-tool', entry.tool);
  // The group's name: a tool's name as code (not a word to translate), or "Every tool (*)".
  const legend = el(doc, 'legend', 'tc-ai-rule-tool');
  legend.appendChild(entry.tool === '*' ? doc.createTextNode(toolLabel(host, entry.tool)) : el(doc, 'code', '', entry.tool));
  box.appendChild(legend);
  const modeRow = el(doc, 'div', 'tc-ai-rule-mode-row');
  const modeLabel = words('Settings/Rules/Mode');
  const mode = select(
    host,
    'tc-ai-rule-mode',
    modeLabel,
    [
      ['', words('Settings/Rules/Mode/Default')],
      ['auto', words('Settings/Rules/Mode/Auto')],
      ['confirm', words('Settings/Rules/Mode/Confirm')],
    ],
    entry.mode,
  );
  mode.addEventListener('change', () => {
    entry.mode = mode.value as Mode;
    save();
  });
  modeRow.appendChild(el(doc, 'span', 'tc-ai-rule-mode-label', `${modeLabel} `));
  modeRow.appendChild(mode);
  box.appendChild(modeRow);
  for (const which of ['allow', 'deny'] as const) box.appendChild(patternList(host, entry, which, save));
  box.appendChild(button(host, 'tc-ai-rule-remove', words('Settings/Rules/Remove'), remove));
  return box;
}

/** The allow or deny patterns of a rule, each with its matches, and "Add a pattern". */
function patternList(host: FormHost, entry: Entry, which: Which, save: () => void): HTMLElement {
  const { doc, words } = host;
  const key = which === 'allow' ? 'Allow' : 'Deny';
  const box = el(doc, 'div', `tc-ai-rule-patterns tc-ai-rule-${which}`);
  box.appendChild(el(doc, 'div', 'tc-ai-rule-patterns-label', words(`Settings/Rules/${key}`)));
  const rows = el(doc, 'ul', 'tc-ai-rule-pattern-list');
  const draw = (focusLast = false) => {
    rows.textContent = '';
    for (let index = 0; index < entry[which].length; index++) rows.appendChild(patternRow(host, entry, which, index, save, draw));
    if (focusLast) rows.querySelector<HTMLInputElement>('li:last-child input')?.focus();
  };
  draw();
  box.appendChild(rows);
  box.appendChild(
    button(host, 'tc-ai-rule-add-pattern', words(`Settings/Rules/Add${key}`), () => {
      entry[which].push('');
      draw(true);
    }),
  );
  return box;
}

function patternRow(host: FormHost, entry: Entry, which: Which, index: number, save: () => void, redraw: () => void): HTMLElement {
  const { doc, words } = host;
  const row = el(doc, 'li', 'tc-ai-rule-pattern-row');
  const label = words(which === 'allow' ? 'Settings/Rules/AllowPattern' : 'Settings/Rules/DenyPattern');
  const input = textInput(host, 'tc-ai-rule-pattern', label, entry[which][index] ?? '', 30);
  input.spellcheck = false;
  const matches = el(doc, 'div', 'tc-ai-rule-matches');
  matches.setAttribute('aria-live', 'polite');
  const problem = el(doc, 'div', 'tc-ai-rule-problem');
  problem.setAttribute('role', 'alert');
  const update = () => showMatches(host, input, matches, problem);
  input.addEventListener('input', () => {
    entry[which][index] = input.value;
    update();
    save();
  });
  row.appendChild(input);
  row.appendChild(
    button(host, 'tc-ai-rule-remove-pattern', words('Settings/Rules/RemovePattern'), () => {
      entry[which].splice(index, 1);
      save();
      redraw();
    }),
  );
  row.appendChild(problem);
  row.appendChild(matches);
  update();
  return row;
}

/** The tiddlers the input's pattern matches (a count and the first titles), or why it is not a pattern. */
function showMatches(host: FormHost, input: HTMLInputElement, matches: HTMLElement, problem: HTMLElement): void {
  const { doc, words } = host;
  matches.textContent = '';
  matches.removeAttribute('data-count');
  const pattern = input.value;
  if (!pattern) {
    showProblem(problem, input, '');
    return;
  }
  const found = patternMatches(host.titles, pattern);
  if ('error' in found) {
    showProblem(problem, input, words('Settings/Rules/Invalid'));
    problem.appendChild(el(doc, 'code', 'tc-ai-rule-problem-detail', found.error));
    return;
  }
  showProblem(problem, input, '');
  matches.setAttribute('data-count', String(found.count));
  const head = !found.count ? 'Settings/Rules/NoMatch' : found.count === 1 ? 'Settings/Rules/MatchOne' : 'Settings/Rules/Matches';
  matches.appendChild(el(doc, 'div', 'tc-ai-rule-matches-head', words(head).replace('$count$', String(found.count))));
  if (!found.count) return;
  const titles = el(doc, 'ul', 'tc-ai-rule-matches-list');
  for (const title of found.titles) titles.appendChild(el(doc, 'li', '', title));
  matches.appendChild(titles);
  if (found.count > found.titles.length)
    matches.appendChild(el(doc, 'div', 'tc-ai-rule-matches-more', words('Settings/Rules/More').replace('$count$', String(found.count - found.titles.length))));
}

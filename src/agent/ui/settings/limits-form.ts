/*\
The agent's limits as a form (store/agent-limits.ts): the time limit of every tool call
(`agent-tool-timeout`), a time limit per tool (`agent-tool-timeouts`, JSON of seconds), and the
retry policy of a failed model request (`agent-retries`, `agent-retry-delay`,
`agent-retry-max-delay`). A value is checked as it is typed: a valid one (or none: the default)
is written at once, one that is not says why in plain words and is not written.
\*/
import { LIMIT_DEFAULTS, LIMITS, limitProblem, parseToolTimeouts, type LimitField } from '../../store/agent-limits';
import { el } from '../chat-context';
import { button, select, showProblem, textInput, type FormHost } from './form-host';

const PER_TOOL = 'agent-tool-timeouts';

/** The label's key of each field (its hint is the key + "/Hint"). */
const LABELS: Record<LimitField, string> = {
  'agent-tool-timeout': 'Settings/Limits/ToolTimeout',
  'agent-retries': 'Settings/Limits/Retries',
  'agent-retry-delay': 'Settings/Limits/RetryDelay',
  'agent-retry-max-delay': 'Settings/Limits/RetryMaxDelay',
};

export function limitsForm(host: FormHost): HTMLElement {
  const root = el(host.doc, 'div', 'tc-ai-limits');
  root.appendChild(limitField(host, 'agent-tool-timeout'));
  root.appendChild(perToolTimeouts(host));
  for (const field of ['agent-retries', 'agent-retry-delay', 'agent-retry-max-delay'] as const) root.appendChild(limitField(host, field));
  return root;
}

/** Why `value` cannot be stored in `field`, in the user's words ('' when it can). */
function problemText(host: FormHost, field: LimitField, value: string): string {
  const problem = limitProblem(field, value);
  if (!problem) return '';
  const { min, max, whole } = LIMITS[field];
  return host
    .words(whole ? 'Settings/Limits/Whole' : 'Settings/Limits/Number')
    .replace('$min$', String(min))
    .replace('$max$', String(max))
    .replace('$default$', String(LIMIT_DEFAULTS[field]));
}

/** One limit: its label, the input, a hint, and the problem line. */
function limitField(host: FormHost, field: LimitField): HTMLElement {
  const { doc, words } = host;
  const row = el(doc, 'div', 'tc-ai-limit');
  row.setAttribute('data-field', field);
  const id = host.id();
  const label = el(doc, 'label', 'tc-ai-limit-label', words(LABELS[field]));
  label.setAttribute('for', id);
  const input = textInput(host, 'tc-ai-limit-input', words(LABELS[field]), host.read(field) ?? '', 6);
  input.id = id;
  input.placeholder = String(LIMIT_DEFAULTS[field]);
  const problem = el(doc, 'div', 'tc-ai-rule-problem');
  problem.setAttribute('role', 'alert');
  showProblem(problem, input, problemText(host, field, input.value));
  input.addEventListener('input', () => {
    const text = problemText(host, field, input.value);
    showProblem(problem, input, text);
    if (!text) host.write(field, input.value.trim());
  });
  row.appendChild(label);
  row.appendChild(input);
  row.appendChild(problem);
  row.appendChild(el(doc, 'div', 'tc-ai-settings-hint', words(`${LABELS[field]}/Hint`)));
  return row;
}

interface ToolLimit {
  tool: string;
  seconds: string;
}

/** The per-tool time limits: a row each (tool, seconds, Remove) and "Add a time limit for a tool". */
function perToolTimeouts(host: FormHost): HTMLElement {
  const { doc, words } = host;
  const box = el(doc, 'div', 'tc-ai-limits-per-tool');
  box.appendChild(el(doc, 'div', 'tc-ai-limit-label', words('Settings/Limits/PerTool')));
  const read = parseToolTimeouts(host.read(PER_TOOL));
  if (!read.ok) {
    box.setAttribute('data-broken', 'yes');
    box.appendChild(el(doc, 'p', 'tc-ai-rules-broken', `${words('Settings/Limits/PerToolBroken')} (${read.error})`));
    return box;
  }
  const rows: ToolLimit[] = Object.entries(read.timeouts).map(([tool, seconds]) => ({ tool, seconds: String(seconds) }));
  const save = () => {
    const valid = rows.filter((r) => r.seconds.trim() && !limitProblem('agent-tool-timeout', r.seconds));
    host.write(PER_TOOL, valid.length ? JSON.stringify(Object.fromEntries(valid.map((r) => [r.tool, Number(r.seconds)]))) : '');
  };
  const list = el(doc, 'ul', 'tc-ai-limits-tools');
  const draw = (focus?: ToolLimit, on: 'select' | 'input' = 'input') => {
    list.textContent = '';
    for (const row of rows) {
      const item = toolLimitRow(
        host,
        row,
        rows,
        save,
        () => {
          rows.splice(rows.indexOf(row), 1);
          save();
          draw();
        },
        (changed) => draw(changed, 'select'),
      );
      list.appendChild(item);
      if (row === focus) item.querySelector<HTMLElement>(on)?.focus();
    }
  };
  draw();
  box.appendChild(list);
  box.appendChild(
    button(host, 'tc-ai-limits-add-tool', words('Settings/Limits/AddTool'), () => {
      const tool = host.tools.find((t) => !rows.some((r) => r.tool === t));
      if (!tool) return;
      const row = { tool, seconds: '' };
      rows.push(row);
      draw(row);
    }),
  );
  box.appendChild(el(doc, 'div', 'tc-ai-settings-hint', words('Settings/Limits/PerTool/Hint')));
  return box;
}

function toolLimitRow(
  host: FormHost,
  row: ToolLimit,
  rows: ToolLimit[],
  save: () => void,
  remove: () => void,
  redraw: (focus: ToolLimit) => void,
): HTMLElement {
  const { doc, words } = host;
  const item = el(doc, 'li', 'tc-ai-limits-tool');
  // This row's tool and those no other row has: one row per tool.
  const tools = [...new Set([row.tool, ...host.tools])].filter((t) => t === row.tool || !rows.some((r) => r.tool === t));
  const pick = select(
    host,
    'tc-ai-limits-tool-name',
    words('Settings/Limits/Tool'),
    tools.map((t) => [t, t]),
    row.tool,
  );
  pick.addEventListener('change', () => {
    row.tool = pick.value;
    save();
    redraw(row);
  });
  const seconds = textInput(host, 'tc-ai-limits-tool-seconds', words('Settings/Limits/Seconds'), row.seconds, 6);
  seconds.placeholder = String(LIMIT_DEFAULTS['agent-tool-timeout']);
  const problem = el(doc, 'div', 'tc-ai-rule-problem');
  problem.setAttribute('role', 'alert');
  problem.hidden = true;
  showProblem(problem, seconds, problemText(host, 'agent-tool-timeout', row.seconds));
  seconds.addEventListener('input', () => {
    row.seconds = seconds.value;
    const text = problemText(host, 'agent-tool-timeout', seconds.value);
    showProblem(problem, seconds, text);
    if (!text) save();
  });
  item.appendChild(pick);
  item.appendChild(seconds);
  item.appendChild(el(doc, 'span', 'tc-ai-limits-unit', words('Settings/Limits/Unit')));
  item.appendChild(button(host, 'tc-ai-limits-remove-tool', words('Settings/Limits/RemoveTool'), remove));
  item.appendChild(problem);
  return item;
}

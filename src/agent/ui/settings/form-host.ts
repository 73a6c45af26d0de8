/*\
What the settings' rule forms (approval-form.ts, limits-form.ts) work through: the page's
document, the UI's words, the agent's fields (read and written whole, one field at a time),
the titles a pattern may match, and small builders for their rows.
\*/
import { el } from '../chat-context';
import type { TitleSource } from './pattern-matches';

export interface FormHost {
  doc: Document;
  words(key: string): string;
  /** The agent's field as it is now. */
  read(field: string): string | undefined;
  /** Store the agent's field ('' empties it: the default applies). */
  write(field: string, value: string): void;
  titles: TitleSource;
  /** The tools the agent has (`agent-tools`), in its order. */
  tools: string[];
  /** A unique id for a label's `for`. */
  id(): string;
}

export function button(host: FormHost, className: string, label: string, onClick: () => void): HTMLButtonElement {
  const b = el(host.doc, 'button', `tc-btn-invisible tc-ai-rule-button ${className}`, label) as HTMLButtonElement;
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

/** A <select> of `options` ([value, label]) with `value` chosen, labelled for assistive technology. */
export function select(host: FormHost, className: string, label: string, options: [string, string][], value: string): HTMLSelectElement {
  const s = host.doc.createElement('select');
  s.className = className;
  s.setAttribute('aria-label', label);
  for (const [v, text] of options) {
    const o = host.doc.createElement('option');
    o.value = v;
    o.textContent = text;
    if (v === value) o.selected = true;
    s.appendChild(o);
  }
  return s;
}

/** A text input labelled for assistive technology. */
export function textInput(host: FormHost, className: string, label: string, value: string, size = 10): HTMLInputElement {
  const input = host.doc.createElement('input');
  input.type = 'text';
  input.className = className;
  input.size = size;
  input.value = value;
  input.setAttribute('aria-label', label);
  return input;
}

/** A tool's name as the form shows it: "*" is every tool. */
export function toolLabel(host: FormHost, tool: string): string {
  return tool === '*' ? host.words('Settings/Rules/EveryTool') : tool;
}

/** A problem line under an input: shown with `text`, hidden when empty; the input is marked invalid with it. */
export function showProblem(problem: HTMLElement, input: HTMLElement, text: string): void {
  problem.textContent = text;
  problem.hidden = !text;
  if (text) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

/*\
The `\parameters` form of an action tiddler's typed variables (TiddlyWiki issue 9838 discusses
it beside the `action-variables` field): the action's text starts with

    \parameters (book, status:"to-read")

and the fields `<name>/type`, `<name>/description` (or `/caption`) and `<name>/default` give
each variable's type and words, as for `action-variables`. A variable with a non-empty default
in the pragma takes it (a field `<name>/default` wins); one without (or with "", which
TiddlyWiki reads as no default) is required unless the field gives a default.

Only a pragma among the pragmas at the start of the text counts (one inside a `\procedure`
is that procedure's). The pragma is taken out of the actions before they run: the tool's
arguments reach them as variables of their own (user-tools.ts), which a `\parameters` widget
with no transclusion above it would otherwise hide behind its defaults.
\*/

export interface PragmaParameter {
  name: string;
  /** The pragma's default, when it gives a non-empty one. */
  default?: string;
}

/** Single-line pragmas that may come before `\parameters`. */
const LEADING_PRAGMA = /^[ \t]*\\(?:whitespace|import|rules|parsermode)\b[^\n]*(?:\n|$)/;
const BLANK = /^[ \t]*(?:\r?\n)/;
/** TiddlyWiki's own rules (parameters.js, parseutils.js). */
const PARAMETERS = /^[ \t]*\\parameters\s*\(([^)]*)\)[ \t]*(?:\r?\n|$)/;
const PARAM = /\s*([^:),\s]+)(?:\s*:\s*(?:"""([\s\S]*?)"""|"([^"]*)"|'([^']*)'|([^,"'\s]+)))?/g;

/** The `\parameters` pragma at the start of `text`: its parameters and the text without it; undefined when there is none. */
export function parametersPragma(text: string): { parameters: PragmaParameter[]; actions: string } | undefined {
  let at = 0;
  for (;;) {
    const rest = text.slice(at);
    const skip = BLANK.exec(rest) ?? LEADING_PRAGMA.exec(rest);
    if (skip) {
      at += skip[0].length;
      continue;
    }
    const match = PARAMETERS.exec(rest);
    if (!match) return undefined;
    return { parameters: parseDefinition(match[1]!), actions: text.slice(0, at) + rest.slice(match[0].length) };
  }
}

function parseDefinition(definition: string): PragmaParameter[] {
  const out: PragmaParameter[] = [];
  for (const m of definition.matchAll(PARAM)) {
    const value = m[2] || m[3] || m[4] || m[5];
    out.push(value ? { name: m[1]!, default: value } : { name: m[1]! });
  }
  return out;
}

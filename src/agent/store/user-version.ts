/*\
Edit before allowing, on a tool message waiting for approval: the tiddler whose text the user
may change on the card (`approval-edit`, written by the engine when the tool allows it), and,
once they allowed their own version, that text (`approval-text`). The text is kept as a JSON
string: an emptied text stays distinct from none, and the message keeps single-line fields
(TiddlyWiki saves a tiddler with a line break in a field as JSON, not as a .tid file).
\*/

/** Message field: the tiddler whose text the user may edit before allowing the call. */
export const APPROVAL_EDIT = 'approval-edit';
/** Message field: the user's version of that text (JSON string). */
export const APPROVAL_TEXT = 'approval-text';

/** The user's version of a decided call's text, or undefined when they allowed the agent's. */
export function userVersion(fields: { [APPROVAL_TEXT]?: unknown }): string | undefined {
  const raw = fields[APPROVAL_TEXT];
  if (typeof raw !== 'string' || !raw) return undefined;
  try {
    const text: unknown = JSON.parse(raw);
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

/** The field's value for `text` (undefined: no field). */
export function userVersionField(text: string | undefined): string | undefined {
  return text === undefined ? undefined : JSON.stringify(text);
}

/** What a call's message drops once the call ran or was refused: the card's fields, the user's version with them (the journal keeps what landed). */
export const DONE_WITH_APPROVAL = {
  'approval-expires': undefined,
  'tool-changes': undefined,
  'approval-choices': undefined,
  'approval-targets': undefined,
  [APPROVAL_EDIT]: undefined,
  [APPROVAL_TEXT]: undefined,
};

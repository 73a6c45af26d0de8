// Typed action variables in the `\parameters` form (TiddlyWiki issue 9838), beside the
// `action-variables` field: which variables a plugin's action takes, their types, words,
// defaults and which are required, and the actions that run without the pragma.
import { parametersPragma } from '../../../src/agent/tools/action-parameters';
import { actionSchema, actionText } from '../../../src/agent/tools/plugin-tools';

test('the pragma at the start names the variables, with its non-empty defaults; it is taken out of the actions', () => {
  const text = '\\parameters (book, status:"to-read", note:"", count:\'3\', when:today)\n<$action-setfield $tiddler=<<book>> status=<<status>>/>';
  expect(parametersPragma(text)).toEqual({
    parameters: [
      { name: 'book' },
      { name: 'status', default: 'to-read' },
      { name: 'note' },
      { name: 'count', default: '3' },
      { name: 'when', default: 'today' },
    ],
    actions: '<$action-setfield $tiddler=<<book>> status=<<status>>/>',
  });
  // After blank lines and other one-line pragmas; those stay.
  expect(parametersPragma('\n\\whitespace trim\n\\parameters(a:"""x, y""")\nrest')).toEqual({
    parameters: [{ name: 'a', default: 'x, y' }],
    actions: '\n\\whitespace trim\nrest',
  });
});

test("a pragma that is not at the start (a procedure's own, or after text) is not the action's", () => {
  expect(parametersPragma('\\procedure p()\n\\parameters (x)\n<<x>>\n\\end\n<<p>>')).toBeUndefined();
  expect(parametersPragma('Some text\n\\parameters (x)')).toBeUndefined();
  expect(parametersPragma('<$action-setfield $tiddler="a" text="b"/>')).toBeUndefined();
});

test('types, descriptions and defaults come from the fields the convention names; no default means required', () => {
  const schema = actionSchema({
    title: 'A',
    text: '\\parameters (title:"", note:"", count:"2", done)\n<$action-setfield $tiddler=<<title>> text=<<note>>/>',
    'title/type': 'string',
    'title/description': 'The tiddler to write',
    'note/caption': 'A note',
    'note/default': '',
    'count/type': 'integer',
    'done/type': 'boolean',
    'done/default': 'no',
  });
  expect(schema).toEqual({
    type: 'object',
    properties: {
      title: { type: 'string', description: 'The tiddler to write' },
      note: { type: 'string', description: 'A note', default: '' },
      count: { type: 'integer', default: 2 },
      done: { type: 'boolean', default: false },
    },
    required: ['title'],
    additionalProperties: false,
  });
});

test('action-variables wins over the pragma for the names; the pragma still gives defaults and is never run', () => {
  const fields = { title: 'A', 'action-variables': 'status', text: '\\parameters (status:"read", other)\n<$action-setfield $tiddler="X" status=<<status>>/>' };
  expect(actionSchema(fields)).toEqual({
    type: 'object',
    properties: { status: { type: 'string', default: 'read' } },
    required: [],
    additionalProperties: false,
  });
  expect(actionText(fields)).toBe('<$action-setfield $tiddler="X" status=<<status>>/>');
});

test('bad names, types and defaults are refused with what is wrong', () => {
  expect(() => actionSchema({ title: 'A', text: '\\parameters ($x)\nx' })).toThrow('the variable "$x" (the \\parameters pragma) is not a usable name');
  expect(() => actionSchema({ title: 'A', text: '\\parameters (n:"many")\nx', 'n/type': 'number' })).toThrow(
    'the default of "n" in the \\parameters pragma is not a number (it is "many")',
  );
  expect(() => actionSchema({ title: 'A', text: '\\parameters (n:"1")\nx', 'n/type': 'number', 'n/default': 'x' })).toThrow(
    'the field "n/default" is not a number',
  );
  expect(() => actionSchema({ title: 'A', text: '\\parameters (d)\nx', 'd/type': 'date' })).toThrow('the field "d/type" must be one of');
});

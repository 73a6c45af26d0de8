// buildHistory with images: a user message's attachments and a tool result's images become
// the message's `images` (after its text), also when tool results travel as one user message
// of the text protocol; what an attachment cannot show is a note in the text.
import { buildHistory, type AttachmentPart } from '../../../src/agent/engine/history';
import type { Message } from '../../../src/agent/store/schemas';

const IMG = { mediaType: 'image/png', data: 'iVBORw0KGgo=' };
const msg = (seq: number, fields: Partial<Message>): Message =>
  ({ title: `m${seq}`, text: '', 'agent-chat': 'c', 'agent-seq': seq, role: 'user', attachments: [], 'approval-choices': [], ...fields }) as Message;

const messages = [
  msg(0, { text: 'Look', attachments: ['Photo.png', 'Gone.png'] }),
  msg(1, { role: 'assistant', 'tool-calls': JSON.stringify([{ id: 'c1', name: 'wiki-read', args: { title: 'Photo.png' } }]) }),
  msg(2, {
    role: 'tool',
    text: 'the image is attached',
    'tool-name': 'wiki-read',
    'tool-call-id': 'c1',
    'tool-status': 'ok',
    'tool-args': '{"title":"Photo.png"}',
    attachments: ['Photo.png'],
  }),
];
const attachment = (title: string, m: Message): AttachmentPart =>
  title === 'Photo.png'
    ? { text: m.role === 'user' ? 'Attached image "Photo.png".' : undefined, image: IMG }
    : { text: `[The image "${title}" is not available any more.]` };

test('native: images on the user message and on the tool result', () => {
  const out = buildHistory(messages, 'native', attachment).map((e) => e.message);
  expect(out[0]).toEqual({ role: 'user', content: 'Look\n\nAttached image "Photo.png".\n\n[The image "Gone.png" is not available any more.]', images: [IMG] });
  expect(out[2]).toEqual({ role: 'tool', toolCallId: 'c1', toolName: 'wiki-read', content: 'the image is attached', images: [IMG] });
});

test('text protocol: the results message carries the images', () => {
  const out = buildHistory(messages, 'text', attachment).map((e) => e.message);
  expect(out[2]).toMatchObject({ role: 'user', content: expect.stringContaining('the image is attached'), images: [IMG] });
});

test('without attachments a message has no images key', () => {
  const out = buildHistory([msg(0, { text: 'hi' })], 'native').map((e) => e.message);
  expect(out).toEqual([{ role: 'user', content: 'hi' }]);
});

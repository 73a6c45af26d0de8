// The image check every image passes before it reaches a model: real base64, at most 5 MB
// decoded, bytes that begin like a PNG, JPEG, GIF or WebP (the type sent is what the bytes
// show), and what an image tiddler stored outside the wiki says.
import { checkImage, isImageTiddler, MAX_IMAGE_BYTES, sizeText, tiddlerImage } from '../../../src/agent/tools/images';

const b64 = (bytes: number[] | string, pad = 0) => Buffer.concat([Buffer.from(bytes as never), Buffer.alloc(pad)]).toString('base64');
const PNG = b64([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 8);
const JPEG = b64([0xff, 0xd8, 0xff, 0xe0], 8);
const GIF = b64('GIF89a', 8);
const WEBP = b64('RIFF\x10\x00\x00\x00WEBPVP8 ', 4);

test.each([
  ['PNG', PNG, 'image/png'],
  ['JPEG', JPEG, 'image/jpeg'],
  ['GIF', GIF, 'image/gif'],
  ['WebP', WEBP, 'image/webp'],
])('a %s is recognised by its bytes', (_name, data, mediaType) => {
  expect(checkImage(data)).toEqual({ image: { mediaType, data } });
});

test('line breaks in the base64 are dropped; a JPEG stored as image/png is sent as image/jpeg', () => {
  const wrapped = `${JPEG.slice(0, 8)}\n${JPEG.slice(8)}\n`;
  expect(tiddlerImage('Photo', { title: 'Photo', type: 'image/png', text: wrapped })).toEqual({ image: { mediaType: 'image/jpeg', data: JPEG } });
});

test.each([
  ['empty', '', 'it is empty.'],
  ['not base64', 'iVBORw0KGgo!!!', 'its content is not valid base64, so it is not an image.'],
  ['cut base64', PNG.slice(0, -1), 'its content is not valid base64, so it is not an image.'],
  ['text pretending', b64('Hello, I am a picture, honest.'), 'its bytes are not a PNG, JPEG, GIF or WebP image.'],
  ['an SVG', b64('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'its bytes are not a PNG, JPEG, GIF or WebP image.'],
])('%s is refused', (_name, data, problem) => {
  expect(checkImage(data)).toEqual({ problem });
});

test('5 MB decoded is the limit', () => {
  expect('image' in checkImage(b64([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], MAX_IMAGE_BYTES - 8 - 1))).toBe(true);
  expect(checkImage(b64([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], MAX_IMAGE_BYTES))).toEqual({
    problem: 'it is 5.1 MB, more than the 5 MB an image may have.',
  });
  expect(sizeText(700)).toBe('1 KB');
  expect(sizeText(5 * 1024 * 1024)).toBe('5 MB');
  expect(sizeText(5.5 * 1024 * 1024)).toBe('5.5 MB');
});

test('which tiddlers are images: png, jpeg, gif, webp; SVG and other binaries are not', () => {
  expect(['image/png', 'image/jpeg', 'image/gif', 'image/webp'].every((type) => isImageTiddler({ title: 'x', type }))).toBe(true);
  expect(['image/svg+xml', 'image/x-icon', 'application/pdf', 'text/vnd.tiddlywiki', ''].some((type) => isImageTiddler({ title: 'x', type }))).toBe(false);
  expect(isImageTiddler(undefined)).toBe(false);
});

test('an image stored outside the wiki is not fetched', () => {
  expect(tiddlerImage('Far', { title: 'Far', type: 'image/png', _canonical_uri: 'https://example.com/far.png', text: '' })).toEqual({
    problem: 'The image "Far" is stored outside the wiki (_canonical_uri https://example.com/far.png); it is not fetched, so it is not shown.',
  });
});

// A tiddler's fingerprint (store/fingerprint.ts) is FNV-1a 64 over its fields as documented,
// checked against an independent BigInt implementation over Node's UTF-8 encoder; and the
// read ledger (store/read-ledger.ts) folds the versions a chat's messages recorded.
import { fingerprint } from '../../../src/agent/store/fingerprint';
import { parseReads, readLedger } from '../../../src/agent/store/read-ledger';
import type { Message } from '../../../src/agent/store/schemas';

function reference(fields: Record<string, string>): string {
  let h = 0xcbf29ce484222325n;
  const feed = (s: string) => {
    for (const byte of Buffer.from(s, 'utf8')) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  };
  const version: Record<string, string> = { ...fields, type: fields.type || 'text/vnd.tiddlywiki' };
  for (const name of Object.keys(version)
    .filter((k) => k !== 'revision' && k !== 'bag')
    .sort()) {
    feed(`${name.length}:`);
    feed(name);
    feed(`${version[name]!.length}:`);
    feed(version[name]!);
  }
  return h.toString(16).padStart(16, '0');
}

test('FNV-1a 64 over the documented encoding, whatever the characters', () => {
  const cases: Record<string, string>[] = [
    { title: 'a' },
    { title: 'Garden', text: 'ünï 日本語 🐢 tabs\tand\nlines', tags: '[[Spring work]] Garden', modified: '20260101000000000' },
    { title: 'lone surrogates', text: '\ud800 and \udc00 alone' },
    { title: 'big', text: 'x'.repeat(200_000), type: 'text/plain' },
  ];
  for (const fields of cases) expect(fingerprint(fields)).toBe(reference(fields));
  expect(fingerprint({ title: 'a' })).toMatch(/^[0-9a-f]{16}$/);
});

test('any change of a field or the text is a new version; field order, the sync bookkeeping and a default type are not', () => {
  const base = { title: 'Note', text: 'Words', tags: 'A', modified: '20260101000000000' };
  const v = fingerprint(base);
  const changes: Record<string, string>[] = [
    { text: 'Words.' },
    { tags: 'A B' },
    { modified: '20260101000000001' },
    { caption: 'New' },
    { caption: '' },
    { type: 'text/plain' },
  ];
  for (const change of changes) {
    expect(fingerprint({ ...base, ...change })).not.toBe(v);
  }
  expect(fingerprint({ modified: base.modified, tags: 'A', text: 'Words', title: 'Note' })).toBe(v);
  expect(fingerprint({ ...base, revision: '12', bag: 'default', type: 'text/vnd.tiddlywiki' })).toBe(v);
  // Values cannot pass for names: the lengths keep every field apart.
  expect(fingerprint({ title: 'a', ab: 'c' })).not.toBe(fingerprint({ title: 'a', a: 'bc' }));
});

test('the ledger: the latest version each message recorded, through the given message, in seq order', () => {
  const message = (seq: number, read?: Record<string, string> | string) =>
    ({ title: `m${seq}`, 'agent-seq': seq, 'agent-read': typeof read === 'string' ? read : read && JSON.stringify(read) }) as unknown as Message;
  const messages = [message(4, { A: 'a2', B: 'b1' }), message(1, { A: 'a1' }), message(2), message(3, 'not JSON'), message(6, { A: 'a3' })];
  expect(Object.fromEntries(readLedger(messages, 5))).toEqual({ A: 'a2', B: 'b1' });
  expect(Object.fromEntries(readLedger(messages, 6))).toEqual({ A: 'a3', B: 'b1' });
  expect(Object.fromEntries(readLedger(messages, 3))).toEqual({ A: 'a1' });
  expect(parseReads('["A"]')).toEqual({});
  expect(parseReads('{"A": 1, "B": "b"}')).toEqual({ B: 'b' });
});

/*\
A tiddler's fingerprint: a short hash of every field and the text, so "is this the version
the agent read?" is answered by content, not by `modified` (an edit can keep its `modified`:
`<$action-setfield $timestamp="no"/>`, or a client that does not stamp). The field order does
not matter; only the server's own bookkeeping (`revision`, `bag`), which changes when nothing
in the tiddler does, is left out, and a missing `type` is the default wikitext type, which a
tiddler gains when it comes back from a server. Pure code (it runs in the browser and on the
server).

The hash is FNV-1a 64 over the UTF-8 bytes of each field as `<name length>:<name><value
length>:<value>`, fields sorted by name, written as 16 hex digits: reproducible anywhere,
and no field's value can pass for another's.
\*/
import type { TiddlerFields } from './wiki-port';

/** Fields the server sets on its own (TiddlyWiki's sync bookkeeping): not part of a version. */
const BOOKKEEPING = new Set(['revision', 'bag']);
const DEFAULT_TYPE = 'text/vnd.tiddlywiki';

export function fingerprint(fields: TiddlerFields): string {
  const hash = new Fnv1a64();
  const version: TiddlerFields = { ...fields, type: fields.type || DEFAULT_TYPE };
  for (const name of Object.keys(version)
    .filter((k) => !BOOKKEEPING.has(k))
    .sort()) {
    const value = version[name] ?? '';
    hash.text(`${name.length}:`).text(name).text(`${value.length}:`).text(value);
  }
  return hash.hex();
}

/** FNV-1a 64 in four 16-bit limbs (JavaScript numbers multiply exactly only to 2^53). */
class Fnv1a64 {
  // The offset basis 0xcbf29ce484222325, lowest limb first.
  private h0 = 0x2325;
  private h1 = 0x8422;
  private h2 = 0x9ce4;
  private h3 = 0xcbf2;

  /** Feed a string's UTF-8 bytes (a lone surrogate counts as U+FFFD, as TextEncoder has it). */
  text(s: string): this {
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        this.byte(c);
        continue;
      }
      if (c < 0x800) {
        this.byte(0xc0 | (c >> 6));
      } else {
        if (c >= 0xd800 && c <= 0xdfff) {
          const next = s.charCodeAt(i + 1);
          if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
            c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
            i++;
            this.byte(0xf0 | (c >> 18));
            this.byte(0x80 | ((c >> 12) & 0x3f));
          } else c = 0xfffd;
        }
        if (c < 0x10000) this.byte(0xe0 | (c >> 12));
        this.byte(0x80 | ((c >> 6) & 0x3f));
      }
      this.byte(0x80 | (c & 0x3f));
    }
    return this;
  }

  /** h = (h ^ byte) * 0x100000001b3 mod 2^64; the prime is 2^40 + 0x1b3. */
  private byte(b: number): void {
    const h0 = this.h0 ^ b;
    const t0 = h0 * 0x1b3;
    let t1 = this.h1 * 0x1b3;
    let t2 = this.h2 * 0x1b3 + (h0 << 8);
    let t3 = this.h3 * 0x1b3 + (this.h1 << 8);
    t1 += t0 >>> 16;
    t2 += t1 >>> 16;
    t3 += t2 >>> 16;
    this.h0 = t0 & 0xffff;
    this.h1 = t1 & 0xffff;
    this.h2 = t2 & 0xffff;
    this.h3 = t3 & 0xffff;
  }

  hex(): string {
    return [this.h3, this.h2, this.h1, this.h0].map((limb) => limb.toString(16).padStart(4, '0')).join('');
  }
}

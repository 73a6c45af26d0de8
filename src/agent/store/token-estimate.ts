/*\
Token estimation without a tokenizer, CJK aware: each CJK ideograph, kana, hangul syllable or
CJK/full-width punctuation mark counts as one token, other text as one token per four
characters. The engine trims prompts with it (engine/context.ts) and spending caps price replies
whose provider reported no usage with it (store/spend.ts).
\*/
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/gu;
const NOT_ASCII = /[\u0080-\uffff]/;
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/** Counted with regular expressions over the whole text, not character by character (a long chat's text is measured in milliseconds). */
export function estimateTokens(text: string): number {
  if (!NOT_ASCII.test(text)) return Math.ceil(text.length / 4);
  const codePoints = text.length - (text.match(SURROGATE_PAIR)?.length ?? 0);
  const cjk = text.match(CJK)?.length ?? 0;
  return cjk + Math.ceil((codePoints - cjk) / 4);
}

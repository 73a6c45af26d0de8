/*\
Token estimation without a tokenizer, CJK aware: each CJK ideograph, kana, hangul syllable or
CJK/full-width punctuation mark counts as one token, other text as one token per four
characters. The engine trims prompts with it (engine/context.ts) and spending caps price replies
whose provider reported no usage with it (store/spend.ts).
\*/
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;

export function estimateTokens(text: string): number {
  let cjk = 0;
  let other = 0;
  for (const ch of text) {
    if (CJK.test(ch)) cjk++;
    else other++;
  }
  return cjk + Math.ceil(other / 4);
}

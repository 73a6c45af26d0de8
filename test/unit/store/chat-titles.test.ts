// Automatic chat titles in both shipped languages: the request's instruction (the runner's
// words, English by default), the cleaning of what a model suggests (CJK length in characters,
// CJK punctuation and quotes), and the fallback from the first message (in Chinese: its
// subject, in characters, never "Chat about").
import { cleanTitle, titleFromMessage, titleFromSuggestion, writtenWithoutSpaces } from '../../../src/agent/store/chat-titles';
import { titleInstruction } from '../../../src/agent/engine/chat-title';
const { mockTitle, titleRequestLanguage } = require('../../../scripts/mock-llm.cjs');

const ZH_REQUEST =
  '为这段对话命名：用一个简短的名词短语说出下面这段对话的主题，就像一条笔记的标题：不超过 $characters$ 个字（英文等用空格分词的语言不超过 $words$ 个词），不要写成句子，也不要写成“关于……的对话”。请使用用户消息所用的语言。只回复标题本身：不要引号，不要句末标点，不要任何标记。';

describe('the title request', () => {
  test("English by default: a short noun phrase in the language of the user's message, its limits filled in", () => {
    const english = titleInstruction();
    expect(english).toMatch(/^Name this chat: /);
    expect(english).toContain('noun phrase');
    expect(english).toContain('at most 6 words (in Chinese or Japanese, at most 12 characters)');
    expect(english).toContain("language of the user's message");
    expect(english).not.toMatch(/\$\w+\$/);
    expect(titleRequestLanguage(english)).toBe('en');
  });

  test("in the runner's words (zh-Hans): Chinese, with the limits filled in, and the mock knows it as a title request", () => {
    const chinese = titleInstruction({ titleRequest: ZH_REQUEST });
    expect(chinese).toMatch(/^为这段对话命名：/);
    expect(chinese).toContain('不超过 12 个字');
    expect(chinese).toContain('不超过 6 个词');
    expect(titleRequestLanguage(chinese)).toBe('zh');
    // A blank translation leaves the English.
    expect(titleInstruction({ titleRequest: '  ' })).toBe(titleInstruction());
  });
});

describe('a suggested title, cleaned', () => {
  test.each([
    ['「花园笔记整理」', '花园笔记整理'],
    ['《春季播种计划》。', '春季播种计划'],
    ['标题：花园笔记', '花园笔记'],
    ['“季度报告”', '季度报告'],
    ['、花园笔记！', '花园笔记'],
    ["'Garden plans'", 'Garden plans'],
    ['Garden plans.', 'Garden plans'],
    ['タイトル：庭のメモ', '庭のメモ'],
  ])('%s becomes %s', (raw, title) => {
    expect(titleFromSuggestion(raw)).toBe(title);
  });

  test('Chinese is counted in characters: up to 16 taken, a sentence-long answer refused', () => {
    expect(titleFromSuggestion('春季花园种植与浇水计划的整理笔记')).toBe('春季花园种植与浇水计划的整理笔记');
    expect(titleFromSuggestion('这是一段关于如何在春天规划花园并安排浇水时间的对话')).toBeUndefined();
    expect(titleFromSuggestion('Plans for the garden in the spring and summer')).toBeUndefined();
    expect(titleFromSuggestion('TiddlyWiki 插件开发')).toBe('TiddlyWiki 插件开发');
  });

  test('an ASCII title keeps what starts it and what it holds inside', () => {
    expect(cleanTitle('.NET tips')).toBe('.NET tips');
    expect(cleanTitle("Alice's notes (draft)")).toBe("Alice's notes (draft)");
  });
});

describe('the fallback title from the first message', () => {
  test('English: its first words, at most 48 characters (as before)', () => {
    expect(titleFromMessage('Hello, what tiddlers do I have? And what else can you do for me today?')).toBe('Hello, what tiddlers do I have? And what else');
    expect(writtenWithoutSpaces('Hello, what tiddlers do I have?')).toBe(false);
  });

  test('Chinese: the first sentence without a greeting, in characters', () => {
    expect(writtenWithoutSpaces('你好，请帮我整理花园笔记')).toBe(true);
    expect(titleFromMessage('你好，请帮我整理花园笔记。然后告诉我还缺什么。')).toBe('请帮我整理花园笔记');
    expect(titleFromMessage('你好！')).toBe('你好');
    expect(titleFromMessage('[[花园笔记]] 里有什么？\n第二行')).toBe('花园笔记 里有什么');
  });

  test('Chinese: a long sentence is cut after a comma past the middle, else with an ellipsis', () => {
    expect(titleFromMessage('请把花园笔记按季节分类整理，然后列出缺少的植物和需要购买的工具')).toBe('请把花园笔记按季节分类整理');
    const cut = titleFromMessage('请把我所有关于花园和阳台种植的笔记都按照季节重新分类整理成清单');
    expect(cut).toBe('请把我所有关于花园和阳台种植的笔…');
    expect([...cut].length).toBe(17);
    expect(cut).not.toMatch(/Chat about/);
  });
});

describe('the mock LLM answers a title request in the language asked for', () => {
  test('a Chinese message: its subject, no "Chat about"', () => {
    expect(mockTitle('你好，请帮我整理花园笔记', ZH_REQUEST)).toBe('整理花园笔记');
    expect(mockTitle('帮我整理花园笔记', 'Name this chat: …')).toBe('整理花园笔记');
  });

  test('an English message: "Chat about" and its first words; no words: the instruction\'s language', () => {
    expect(mockTitle('Plan my vegetable garden', 'Name this chat: …')).toBe('Chat about Plan my vegetable');
    expect(mockTitle('？！', ZH_REQUEST)).toBe('新对话');
    expect(mockTitle('?!', 'Name this chat: …')).toBe('Chat about nothing');
  });
});

// WCAG contrast of what a page shows, measured in the page: every visible text under the given
// selectors against its effective background (alpha and opacity folded in). The same
// measurement readable.test.ts makes over the chat, the settings and the sidebar tabs, and other UI tests reuse.

export interface Offender {
  text: string;
  ratio: number;
  fg: string;
  bg: string;
  cls: string;
}

/** Run with page.evaluate(measureContrast, selectors): AA is 4.5:1, 3:1 for large text. */
export function measureContrast(selectors: string[]): { lowest: number; count: number; offenders: Offender[] } {
  const parse = (c: string): number[] => {
    const m = /rgba?\(([^)]+)\)/.exec(c);
    if (!m) return [0, 0, 0, 0];
    const p = m[1]!
      .split(/[ ,/]+/)
      .filter(Boolean)
      .map(Number);
    return [p[0]!, p[1]!, p[2]!, p[3] ?? 1];
  };
  const over = (top: number[], under: number[]) => [0, 1, 2].map((i) => top[i]! * top[3]! + under[i]! * (1 - top[3]!)).concat(1);
  const background = (element: Element | null): number[] => {
    if (!element) return [255, 255, 255, 1];
    const own = parse(getComputedStyle(element).backgroundColor);
    if (own[3] === 1) return own;
    const under = background(element.parentElement);
    return own[3] === 0 ? under : over(own, under);
  };
  const luminance = (c: number[]) => {
    const [r, g, b] = c.slice(0, 3).map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const roots = selectors.flatMap((selector) => [...document.querySelectorAll(selector)]);
  const offenders: Offender[] = [];
  let lowest = Infinity;
  let count = 0;
  for (const element of roots.flatMap((root) => [root, ...root.querySelectorAll('*')])) {
    const own = [...element.childNodes].some((n) => n.nodeType === 3 && n.textContent!.trim());
    if (!own || !(element as HTMLElement).checkVisibility?.({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const style = getComputedStyle(element);
    let opacity = 1;
    for (let e: Element | null = element; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    const bg = background(element);
    const fg = over(parse(style.color), bg);
    const fgMixed = over([...fg.slice(0, 3), opacity], bg);
    const [a, b] = [luminance(fgMixed), luminance(bg)];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    count++;
    lowest = Math.min(lowest, ratio);
    if (ratio < (large ? 3 : 4.5))
      offenders.push({
        text: element.textContent!.trim().slice(0, 40),
        ratio: Math.round(ratio * 100) / 100,
        fg: style.color,
        bg: `rgb(${bg.slice(0, 3).map(Math.round).join(',')})`,
        cls: element.className || element.tagName,
      });
  }
  // A field's placeholder is text a user reads too (the browser's default grey fails on dark palettes).
  for (const field of roots.flatMap((root) => [...root.querySelectorAll('[placeholder]')])) {
    if (!field.getAttribute('placeholder')?.trim() || !(field as HTMLElement).checkVisibility?.({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const style = getComputedStyle(field, '::placeholder');
    const bg = background(field);
    const fg = over([...parse(style.color).slice(0, 3), parse(style.color)[3]! * Number(style.opacity || 1)], bg);
    const [a, b] = [luminance(fg), luminance(bg)];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    count++;
    lowest = Math.min(lowest, ratio);
    if (ratio < 4.5)
      offenders.push({
        text: `placeholder: ${field.getAttribute('placeholder')!.slice(0, 40)}`,
        ratio: Math.round(ratio * 100) / 100,
        fg: style.color,
        bg: `rgb(${bg.slice(0, 3).map(Math.round).join(',')})`,
        cls: field.className || field.tagName,
      });
  }
  return { lowest: Math.round(lowest * 100) / 100, count, offenders };
}

/*\
Which shown replies a wiki change can concern: an index from a source's title to the replies
that record it (store/sources.ts). The message list adds a reply when it renders it and
removes it when the view goes, so on a wiki change only the replies whose sources the change
touched are checked again: the cost follows the changed titles, not the chat's length.
\*/

export class SourceWatch<T> {
  private readonly byTitle = new Map<string, Set<T>>();
  private readonly titlesOf = new Map<T, readonly string[]>();

  get size(): number {
    return this.titlesOf.size;
  }

  add(item: T, titles: readonly string[]): void {
    this.remove(item);
    if (!titles.length) return;
    this.titlesOf.set(item, titles);
    for (const title of titles) {
      const items = this.byTitle.get(title);
      if (items) items.add(item);
      else this.byTitle.set(title, new Set([item]));
    }
  }

  remove(item: T): void {
    const titles = this.titlesOf.get(item);
    if (!titles) return;
    this.titlesOf.delete(item);
    for (const title of titles) {
      const items = this.byTitle.get(title);
      items?.delete(item);
      if (items && !items.size) this.byTitle.delete(title);
    }
  }

  /** The items recording any of these titles. */
  affected(titles: Iterable<string>): Set<T> {
    const out = new Set<T>();
    for (const title of titles) for (const item of this.byTitle.get(title) ?? []) out.add(item);
    return out;
  }
}

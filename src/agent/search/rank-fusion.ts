/*\
Reciprocal rank fusion: several rankings of titles (text search, vector search) become one.
A title's score is the sum over rankings of 1 / (k + its rank), so a title near the top of
both beats one at the top of only one, and scores of different kinds never need scaling.
\*/

/** The usual constant (Cormack et al. 2009): damps the weight of the very first places. */
export const RRF_K = 60;

export function fuseRankings(rankings: readonly (readonly string[])[], k = RRF_K): string[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach((title, i) => {
      scores.set(title, (scores.get(title) ?? 0) + 1 / (k + i + 1));
    });
  }
  // Ties keep the order of first appearance (Map order): the first ranking wins them.
  return [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([title]) => title);
}

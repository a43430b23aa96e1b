// The order in which an artifact index's lists keep their entries when cut: shared by the index's
// own cap (`extractArtifacts`) and by its rendering in a summary message (`renderArtifacts`).

/** Positions of `entries` newest first. @internal */
export function newestFirst(entries: readonly string[]): number[] {
  return Array.from({ length: entries.length }, (_, position) => entries.length - 1 - position);
}

/**
 * Positions of `entries` in the order a cut list keeps them: the newest and the most used in turn
 * (the most used on ties newest first), so a list cut to `k` keeps about `k / 2` of each. @internal
 */
export function newestAndMostUsed(entries: readonly string[], uses: (entry: string) => number): number[] {
  const count = entries.length;
  const byUses = newestFirst(entries).sort((a, b) => uses(entries[b]!) - uses(entries[a]!) || b - a);
  const taken = new Uint8Array(count);
  const order: number[] = [];
  let newest = count - 1;
  let used = 0;
  while (order.length < count) {
    while (newest >= 0 && taken[newest] === 1) newest--;
    if (newest >= 0) {
      taken[newest] = 1;
      order.push(newest);
    }
    while (used < count && taken[byUses[used]!] === 1) used++;
    if (used < count) {
      taken[byUses[used]!] = 1;
      order.push(byUses[used]!);
    }
  }
  return order;
}

import { usesOf, type ArtifactIndex } from "./artifact-index.js";

/**
 * The share of `summaryMaxTokens` that a summary message's `<artifact_index>` block may take; the
 * prefix and the summary's text get the rest (and whatever the index leaves).
 */
export const ARTIFACT_INDEX_SHARE = 0.25;

/** How {@link renderArtifacts} renders an index. */
export interface RenderArtifactsOptions {
  /** Show at most this many of the newest commands. @default 15 */
  readonly commandsShown?: number;
  /**
   * At most this many characters (UTF-16 code units): every list shows at most its `k` first entries
   * by rank, the largest `k` that fits (the same for every list), and says how many it leaves out;
   * an index that does not fit even with no entries renders as `""`. @default no limit
   */
  readonly maxCharacters?: number;
}

/** One list of an index, its entries in their stored order (oldest first) and the order they are kept in. */
interface RankedList {
  readonly entries: readonly string[];
  /** Positions in `entries`, the one kept first first. */
  readonly rank: readonly number[];
}

/** Positions of `entries` newest first. */
function newestFirst(entries: readonly string[]): number[] {
  return Array.from({ length: entries.length }, (_, position) => entries.length - 1 - position);
}

/**
 * Positions of `entries` in the order a cut list keeps them: the newest and the most used in turn
 * (the most used on ties newest first), so a list cut to `k` keeps about `k / 2` of each.
 */
function newestAndMostUsed(entries: readonly string[], uses: (entry: string) => number): number[] {
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

/** The first `k` entries of `list` by rank, in their stored order, and how many are left out. */
function kept({ entries, rank }: RankedList, k: number): { shown: string[]; rest: number } {
  if (k >= entries.length) return { shown: [...entries], rest: 0 };
  const positions = rank.slice(0, k).sort((a, b) => a - b);
  return { shown: positions.map((position) => entries[position]!), rest: entries.length - k };
}

/**
 * {@link renderArtifacts} of `index` for any `maxCharacters`: the lists are ranked once, and each
 * call only picks and renders. @internal
 */
export function artifactIndexFitter(index: ArtifactIndex, commandsShown = 15): (maxCharacters?: number) => string {
  const files = (entries: readonly string[]): RankedList => ({ entries, rank: newestAndMostUsed(entries, (path) => usesOf(index, path)) });
  const newest = (entries: readonly string[]): RankedList => ({ entries, rank: newestFirst(entries) });
  const toolCounts = Object.entries(index.tools);
  const toolNames = toolCounts.map(([name]) => name);
  // Tools by calls, most called first (on ties, the first seen first).
  const tools: RankedList = { entries: toolNames, rank: toolNames.map((_, position) => position).sort((a, b) => toolCounts[b]![1] - toolCounts[a]![1] || a - b) };
  const lists = {
    created: files(index.filesCreated),
    modified: files(index.filesModified),
    read: files(index.filesRead),
    tools,
    identifiers: newest(index.identifiers),
    urls: newest(index.urls),
    commands: newest(index.commands.slice(-commandsShown)),
    errors: newest(index.errors),
  };
  const commandsStored = index.commands.length;
  const render = (k: number): string => {
    const lines: string[] = [];
    const list = (label: string, ranked: RankedList, noun: string, show: (entry: string) => string = (entry) => entry) => {
      const { shown, rest } = kept(ranked, k);
      const items = [...shown.map(show), ...(rest > 0 ? [`… and ${rest} more ${noun}`] : [])];
      if (items.length > 0) lines.push(`${label}: ${items.join(", ")}`);
    };
    const bullets = (label: string, ranked: RankedList, total: number) => {
      const { shown } = kept(ranked, k);
      if (total === 0) return;
      lines.push(`${label}${shown.length < total ? ` (newest ${shown.length} of ${total})` : ""}:`);
      for (const entry of shown) lines.push(`- ${entry}`);
    };
    list("files created", lists.created, "files");
    list("files modified", lists.modified, "files");
    list("files read", lists.read, "files");
    list("tools used", lists.tools, "tools", (name) => `${name} (${index.tools[name]})`);
    list("identifiers", lists.identifiers, "identifiers");
    list("urls", lists.urls, "urls");
    bullets("commands run", lists.commands, commandsStored);
    bullets("errors seen", lists.errors, index.errors.length);
    return lines.length === 0 ? "" : `<artifact_index>\n${lines.join("\n")}\n</artifact_index>`;
  };
  const longest = Math.max(0, ...Object.values(lists).map(({ entries }) => entries.length));
  return (maxCharacters) => {
    const whole = render(longest);
    if (maxCharacters === undefined || whole.length <= maxCharacters) return whole;
    // A k that fits, the largest where longer lists render longer (a list shown whole drops its count of the rest, so not always).
    let fits = -1;
    let over = longest;
    while (over - fits > 1) {
      const middle = (fits + over) >> 1;
      if (render(middle).length <= maxCharacters) fits = middle;
      else over = middle;
    }
    return fits < 0 ? "" : render(fits);
  };
}

/**
 * The index as text for a summary message: an `<artifact_index>` block, empty sections left out.
 * Commands show the newest `commandsShown`. With `maxCharacters`, each list keeps its first entries
 * by rank (files: the newest and the most used in turn, see `ArtifactIndex.fileUses`; the other
 * lists: the newest; tools: the most called), shown in their stored order with a count of the rest
 * (`… and 5980 more files`; `commands run (newest 3 of 40):`).
 *
 * @example
 * renderArtifacts(index); // every entry
 * renderArtifacts(index, { maxCharacters: 1000 }); // "<artifact_index>\nfiles read: a.py, b.py, … and 5998 more files\n</artifact_index>"
 */
export function renderArtifacts(index: ArtifactIndex, options: RenderArtifactsOptions | number = {}): string {
  const { commandsShown, maxCharacters } = typeof options === "number" ? { commandsShown: options, maxCharacters: undefined } : options;
  return artifactIndexFitter(index, commandsShown)(maxCharacters);
}

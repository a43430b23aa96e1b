import { usesOf, type ArtifactIndex } from "./artifact-index.js";
import { newestAndMostUsed, newestFirst } from "./artifact-rank.js";

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
export interface RankedList {
  readonly entries: readonly string[];
  /** Positions in `entries`, the one kept first first. */
  readonly rank: readonly number[];
}

/** Characters that continue a path, word or number: an entry next to one is part of something longer. */
const CONTINUES = /[\p{L}\p{N}_./\\-]/u;

/** Whether `text` holds `entry` on its own: not inside a longer path, word or number (`a.py` is not in `data.py`). */
function mentions(text: string, entry: string): boolean {
  if (entry === "") return false;
  for (let at = text.indexOf(entry); at >= 0; at = text.indexOf(entry, at + 1)) {
    const before = at === 0 ? "" : text[at - 1]!;
    const after = text[at + entry.length] ?? "";
    // A sentence's full stop may follow a name: "." then space or the end does not continue it.
    const afterContinues = CONTINUES.test(after) && !(after === "." && !CONTINUES.test(text[at + entry.length + 1] ?? " "));
    if (!CONTINUES.test(before) && !afterContinues) return true;
  }
  return false;
}

/** How many files of one list the index left out (`filesLeftOut`), 0 for an index without the count. */
function leftOutOf(index: ArtifactIndex, kind: "created" | "modified" | "read"): number {
  const count = index.filesLeftOut?.[kind];
  return typeof count === "number" && count > 0 ? count : 0;
}

/**
 * The first `k` entries of `list` by rank that `named` does not hold, in their stored order, and how
 * many entries are neither shown nor named.
 */
function kept({ entries, rank }: RankedList, k: number, named: (entry: string) => boolean): { shown: string[]; rest: number } {
  const positions: number[] = [];
  let namedCount = 0;
  for (const position of rank) {
    if (named(entries[position]!)) namedCount++;
    else if (positions.length < k) positions.push(position);
  }
  positions.sort((a, b) => a - b);
  return { shown: positions.map((position) => entries[position]!), rest: entries.length - positions.length - namedCount };
}

/**
 * {@link renderArtifacts} of `index` for any `maxCharacters`: the lists are ranked once, and each
 * call only picks and renders. Entries `alreadyNamed` names on their own (a summary that quotes a
 * path or an error line) are not shown again, nor counted in the rest; tools are always listed.
 * @internal
 */
export function artifactIndexFitter(index: ArtifactIndex, commandsShown = 15, alreadyNamed?: string): (maxCharacters?: number) => string {
  return rankedIndexFitter(rankArtifacts(index, commandsShown), alreadyNamed);
}

/** An index's lists ranked for rendering (see {@link rankArtifacts}). @internal */
export interface RankedArtifacts {
  readonly index: ArtifactIndex;
  readonly lists: Readonly<Record<"created" | "modified" | "read" | "tools" | "identifiers" | "urls" | "commands" | "errors", RankedList>>;
}

/** Rankings made by {@link rankArtifacts}, for tests that check an index is ranked once. @internal */
export const artifactRankings = { count: 0 };

/**
 * The lists of `index` ranked once (files: the newest and the most used in turn; tools: the most
 * called; the others: the newest), for renderings of any size and beside any text
 * ({@link rankedIndexFitter}). @internal
 */
export function rankArtifacts(index: ArtifactIndex, commandsShown = 15): RankedArtifacts {
  artifactRankings.count++;
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
  return { index, lists };
}

/**
 * {@link renderArtifacts} of a ranked index for any `maxCharacters`, leaving out the entries
 * `alreadyNamed` names on their own (nor counting them in the rest); tools are always listed. @internal
 */
export function rankedIndexFitter({ index, lists }: RankedArtifacts, alreadyNamed?: string): (maxCharacters?: number) => string {
  // Entries the text beside the index names already (a summary quoting a path or an error line) are not repeated.
  const verdicts = new Map<string, boolean>();
  const named =
    alreadyNamed === undefined || alreadyNamed === ""
      ? () => false
      : (entry: string) => {
          let verdict = verdicts.get(entry);
          if (verdict === undefined) verdicts.set(entry, (verdict = mentions(alreadyNamed, entry)));
          return verdict;
        };
  const commandsStored = index.commands.length;
  const render = (k: number): string => {
    const lines: string[] = [];
    const list = (label: string, ranked: RankedList, noun: string, show?: (entry: string) => string, leftOut = 0) => {
      // Tools are listed with their counts, whoever names them.
      const { shown, rest: notShown } = kept(ranked, k, show ? () => false : named);
      const rest = notShown + leftOut;
      const items = [...(show ? shown.map(show) : shown), ...(rest > 0 ? [`… and ${rest} more ${noun}`] : [])];
      if (items.length > 0) lines.push(`${label}: ${items.join(", ")}`);
    };
    const bullets = (label: string, ranked: RankedList, total: number) => {
      const { shown, rest } = kept(ranked, k, named);
      if (shown.length === 0 && rest === 0) return;
      lines.push(`${label}${shown.length < total ? ` (${shown.length} of ${total})` : ""}:`);
      for (const entry of shown) lines.push(`- ${entry}`);
    };
    // Files the index itself left out (its `filesLeftOut`) count in the rest too.
    list("files created", lists.created, "files", undefined, leftOutOf(index, "created"));
    list("files modified", lists.modified, "files", undefined, leftOutOf(index, "modified"));
    list("files read", lists.read, "files", undefined, leftOutOf(index, "read"));
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
 * (`… and 5980 more files`, the files the index itself left out included; `commands run (3 of 40):`).
 *
 * @example
 * renderArtifacts(index); // every entry
 * renderArtifacts(index, { maxCharacters: 1000 }); // "<artifact_index>\nfiles read: a.py, b.py, … and 5998 more files\n</artifact_index>"
 */
export function renderArtifacts(index: ArtifactIndex, options: RenderArtifactsOptions | number = {}): string {
  const { commandsShown, maxCharacters } = typeof options === "number" ? { commandsShown: options, maxCharacters: undefined } : options;
  return artifactIndexFitter(index, commandsShown)(maxCharacters);
}

// The console warning of a summary that could not be written: once per cause in the process.

const warned = new Set<string>();
/** Causes remembered at most: past it, a new cause is still warned about, and forgotten. */
const MAX_CAUSES = 100;

/** What a run did instead of the summary, in words, from its status. */
function instead(status: string): string {
  if (status === "truncated") return "the oldest messages were cut instead";
  if (status === "compacted") return "the tool-result hiding was kept instead";
  return "the history was left as it was";
}

/**
 * `console.warn` a summary failure the first time its cause is met (its text, figures aside, so a
 * timeout or a missing package warns once, not at every model call). @internal
 */
export function warnSummaryError(strategy: string, summaryError: string, status: string): void {
  const cause = `${strategy}\u0000${summaryError.replace(/\d+/g, "#")}`;
  if (warned.has(cause)) return;
  if (warned.size < MAX_CAUSES) warned.add(cause);
  console.warn(
    `[langchain-compaction] ${strategy}: a summary could not be written: ${summaryError}. ${instead(status)[0]!.toUpperCase()}${instead(status).slice(1)}. ` +
      "Printed once per cause; the warnings: false option silences it.",
  );
}

/** Forget the causes already warned about (tests). @internal */
export function resetSummaryWarnings(): void {
  warned.clear();
}

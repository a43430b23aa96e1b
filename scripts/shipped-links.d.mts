/** Relative link targets of a Markdown text, fragments dropped; none for `#…` or absolute URLs. */
export function relativeLinks(markdown: string): string[];
/** Every link of a shipped Markdown file to a path the package does not ship. */
export function unshippedLinks(shipped: readonly string[], readText?: (file: string) => string): { file: string; target: string }[];

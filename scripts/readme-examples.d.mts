/** A marked ```ts example of README.md or docs/*.md (see scripts/readme-examples.mjs). */
export interface ReadmeExample {
  /** From the marker `<!-- example: NAME -->`. */
  readonly name: string;
  /** The Markdown file, relative to the project. */
  readonly file: string;
  /** Services the example needs (`needs: postgres`); empty for one that runs anywhere. */
  readonly needs: readonly string[];
  readonly code: string;
  /** examples/readme-output/NAME.txt: what it prints, as `node` prints it. */
  readonly expectedPath: string;
}

/** The Markdown files whose examples are run: README.md, then docs/*.md. */
export function documentFiles(root?: string): string[];
/** Every marked example; throws on a ```ts block without a marker or a duplicate name. */
export function readmeExamples(root?: string): ReadmeExample[];
/** An example's TypeScript as plain JavaScript, ESM or CommonJS. */
export function transpile(code: string, format: "esm" | "cjs"): Promise<string>;

// Whether an optional package is installed, found synchronously from this package's own folder
// (where its dynamic and static imports look), so a missing one is reported when first needed.
import { createRequire } from "node:module";
import { MissingPackageError } from "./errors.js";

/** Whether a package can be found from this package's own folder. */
export type PackageResolver = (name: string) => boolean;

function defaultResolver(): PackageResolver {
  // scripts/build.mjs gives the CommonJS build its own file's URL here.
  const requireHere = createRequire(import.meta.url);
  return (name) => {
    try {
      requireHere.resolve(`${name}/package.json`);
      return true;
    } catch {
      try {
        // A package whose exports do not list package.json still resolves by its main entry.
        requireHere.resolve(name);
        return true;
      } catch {
        return false;
      }
    }
  };
}

let resolver: PackageResolver | undefined;

/** Replace the resolver (tests simulate a missing package with it); `undefined` restores Node's. @internal */
export function setPackageResolver(replacement: PackageResolver | undefined): void {
  resolver = replacement;
}

/** Whether `name` can be imported from here. @internal */
export function isInstalled(name: string): boolean {
  resolver ??= defaultResolver();
  return resolver(name);
}

/**
 * Throw when an entry point's optional peer is missing, before its modules import it: CommonJS runs
 * this first; under ESM, Node links every static import before any code runs, so Node's ESM entry
 * (entry.js, written by scripts/build.mjs) runs it and then imports the modules dynamically.
 * @throws {MissingPackageError} with the `npm install` line. @internal
 */
export function assertPeers(entry: string, packages: readonly string[]): void {
  const missing = packages.filter((name) => !isInstalled(name));
  if (missing.length === 0) return;
  throw new MissingPackageError(
    missing,
    `${entry} needs ${missing.join(" and ")} (an optional peer dependency), which ${missing.length === 1 ? "is" : "are"} not installed: npm install ${missing.join(" ")}`,
  );
}

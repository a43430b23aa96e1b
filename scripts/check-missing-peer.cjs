// The optional entry points without their peer: `require` and `import` must throw MissingPackageError
// naming the package to install, not Node's bare "Cannot find module" / ERR_MODULE_NOT_FOUND.
// The peer is hidden from Node's resolvers (it stays installed). Run after the build: node scripts/check-missing-peer.cjs
const Module = require("node:module");
const { execFileSync } = require("node:child_process");
const cases = [
  ["./dist/cjs/store/index.js", "@langchain/langgraph-checkpoint-sqlite", "langchain-compaction/sqlite"],
  ["./dist/cjs/middleware/index.js", "langchain", "langchain-compaction/middleware"],
];
const hidden = (request, peer) => request === peer || request.startsWith(`${peer}/`);
const resolve = Module._resolveFilename;
let failed = 0;

// ESM: the package's "import" entry (package.json exports), in a child process whose resolvers both
// hide the peer: an ESM resolve hook for `import`, and this file's own patch (preloaded) for the
// createRequire the guard uses.
const HOOK = `data:text/javascript,${encodeURIComponent(
  'export async function resolve(s, c, next) { const p = process.env.HIDDEN_PEER; if (s === p || s.startsWith(p + "/")) throw Object.assign(new Error("Cannot find package " + s), { code: "ERR_MODULE_NOT_FOUND" }); return next(s, c); }',
)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(`import { register } from "node:module"; register(${JSON.stringify(HOOK)});`)}`;
if (process.env.HIDDEN_PEER) {
  // Preloaded into the child: hide the peer from require.resolve too.
  const peer = process.env.HIDDEN_PEER;
  Module._resolveFilename = function (request, ...rest) {
    if (hidden(request, peer)) throw Object.assign(new Error(`Cannot find module '${request}'`), { code: "MODULE_NOT_FOUND" });
    return resolve.call(this, request, ...rest);
  };
} else {
  for (const [entry, peer, name] of cases) {
    Module._resolveFilename = function (request, ...rest) {
      if (hidden(request, peer)) throw Object.assign(new Error(`Cannot find module '${request}'`), { code: "MODULE_NOT_FOUND" });
      return resolve.call(this, request, ...rest);
    };
    for (const key of Object.keys(require.cache)) delete require.cache[key];
    try {
      require(require("node:path").resolve(entry));
      console.log(`FAIL ${name}: loaded without ${peer}`);
      failed++;
    } catch (error) {
      const expected = `${name} needs ${peer} (an optional peer dependency), which is not installed: npm install ${peer}`;
      if (error.name === "MissingPackageError" && error.message === expected) console.log(`ok   require("${name}") without ${peer}: ${error.message}`);
      else {
        console.log(`FAIL ${name}: ${error.name}: ${error.message}`);
        failed++;
      }
    }
    Module._resolveFilename = resolve;
  }

  const exportsOf = require("./../package.json").exports;
  for (const [, peer, name] of cases) {
    const entry = exportsOf[name.replace("langchain-compaction", ".")].import.node;
    const script = `import(${JSON.stringify(entry)}).then(() => console.log("loaded"), (error) => console.log(error.name + ": " + error.message));`;
    const output = execFileSync(process.execPath, ["--require", __filename, "--import", REGISTER, "--input-type=module", "-e", script], {
      env: { ...process.env, HIDDEN_PEER: peer },
      encoding: "utf8",
    }).trim();
    const expected = `MissingPackageError: ${name} needs ${peer} (an optional peer dependency), which is not installed: npm install ${peer}`;
    if (output === expected) console.log(`ok   import("${name}") without ${peer}: ${output}`);
    else {
      console.log(`FAIL import("${name}") without ${peer}: ${output}`);
      failed++;
    }
  }
  process.exitCode = failed ? 1 : 0;
}

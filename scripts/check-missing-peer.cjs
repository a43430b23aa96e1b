// The CommonJS build's optional entry points without their peer: `require` must throw
// MissingPackageError naming the package to install, not Node's bare "Cannot find module".
// The peer is hidden from Node's resolver (it stays installed). Run after the build: node scripts/check-missing-peer.cjs
const Module = require("node:module");
const cases = [
  ["./dist/cjs/store/index.js", "@langchain/langgraph-checkpoint-sqlite", "langchain-compaction/sqlite"],
  ["./dist/cjs/middleware/index.js", "langchain", "langchain-compaction/middleware"],
];
const resolve = Module._resolveFilename;
let failed = 0;
for (const [entry, peer, name] of cases) {
  Module._resolveFilename = function (request, ...rest) {
    if (request === peer || request.startsWith(`${peer}/`)) throw Object.assign(new Error(`Cannot find module '${request}'`), { code: "MODULE_NOT_FOUND" });
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
process.exitCode = failed ? 1 : 0;

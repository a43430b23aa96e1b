import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    // Under CI the run is also written as JSON, from which .ci/run prints a plain "N passed, N failed" line.
    reporters: process.env["CI"] ? ["default", "json"] : ["default"],
    outputFile: { json: "test-results/vitest.json" },
  },
});

/**
 * A clone runs with nothing beside it: no code, script or configuration in the repository reads the
 * trace set or anything else from a `shared/` folder outside it, and the recorded sessions the tests,
 * the eval and the benchmarks default to are in the repository with their origins.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BUNDLED_TRACES_PATH, PUBLIC_TRACES_PATH, defaultTracesPath, loadTraceSessions } from "../examples/traces.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const tracked = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean);
/** Files that run or configure something: their text decides what a run reads. */
const RUNNABLE = /\.(ts|mts|cts|js|mjs|cjs|sh)$|^\.ci\/run$|(^|\/)package\.json$|(^|\/)tsconfig[^/]*\.json$|(^|\/)langgraph\.json$/;
/** A path that leaves the repository for a sibling `shared` folder, in any spelling of it. */
const OUTSIDE_SHARED = /\.\.[\\/]+shared\b|["'`]\.\.["'`]\s*,\s*["'`]shared["'`]/;

describe("the repository reads nothing beside it", () => {
  it("no runnable file refers to a shared folder beside the clone", () => {
    const runnable = tracked.filter((path) => RUNNABLE.test(path));
    expect(runnable).toContain("examples/traces.ts");
    expect(runnable).toContain(".ci/run");
    const offenders = runnable.filter((path) => OUTSIDE_SHARED.test(readFileSync(resolve(root, path), "utf8")));
    expect(offenders).toEqual([]);
  });

  it("the pattern catches both spellings a loader would use", () => {
    // Built from parts, so this file does not contain the path it looks for.
    expect(OUTSIDE_SHARED.test(`readFileSync("${".."}/shared/traces/public.jsonl")`)).toBe(true);
    expect(OUTSIDE_SHARED.test(`resolve(root, "..", ${'"shared"'}, "traces")`)).toBe(true);
    expect(OUTSIDE_SHARED.test("the shared prefix")).toBe(false);
  });

  it("the default trace set is the 32 sessions kept in the repository, each with its origin", () => {
    expect(defaultTracesPath()).toBe(PUBLIC_TRACES_PATH);
    expect(tracked).toContain("examples/fixtures/public.jsonl.gz");
    const sessions = loadTraceSessions(PUBLIC_TRACES_PATH);
    const bySource = new Map<string, number>();
    for (const session of sessions) bySource.set(session.source, (bySource.get(session.source) ?? 0) + 1);
    expect(Object.fromEntries(bySource)).toEqual({ "mini-swe-agent-swebench-verified-gemini3pro": 20, "tau-bench-airline-gpt4o": 12 });
    const manifest = JSON.parse(readFileSync(resolve(root, "examples/fixtures/public-manifest.json"), "utf8")) as { id: string; repo: string; commit: string }[];
    expect(manifest.map((entry) => entry.id).sort()).toEqual(sessions.map((session) => session.id).sort());
    const licences = readFileSync(resolve(root, "examples/fixtures/README.md"), "utf8");
    for (const repo of new Set(manifest.map((entry) => entry.repo))) expect(licences).toContain(repo);
    expect(licences).toContain("Copyright (c) 2024 Sierra");
    expect(licences).toContain("Copyright (c) 2025 Kilian A. Lieret and Carlos E. Jimenez");
  });

  it("the two unpacked sessions are the same as in the full set", () => {
    const full = new Map(loadTraceSessions(PUBLIC_TRACES_PATH).map((session) => [session.id, session]));
    const bundled = loadTraceSessions(BUNDLED_TRACES_PATH);
    expect(bundled.map((session) => session.id)).toEqual(["mini-swe-agent/matplotlib__matplotlib-25775", "tau-bench-airline/task2-trial1"]);
    for (const session of bundled) expect(session).toEqual(full.get(session.id));
  });
});

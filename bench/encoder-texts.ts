/**
 * The texts `bench/encoder.ts` counts, by class: the recorded sessions' texts, the whitespace-heavy
 * ones among them, generated whitespace-heavy tool outputs (a `pip list` table, a log with padded
 * columns, `ls -l`, a wide data-frame print, a pytest run), and long runs that a quadratic merge
 * cannot take (one piece of up to 1 MB). Generated texts are seeded: the same on every run.
 */
import { AIMessage } from "@langchain/core/messages";
import { loadTraceSessions } from "../examples/traces.js";
import { seededRandom } from "./synthetic.js";

export interface TextClass {
  name: string;
  texts: string[];
  /** Whether the quadratic encoders (js-tiktoken, gpt-tokenizer, tiktoken) can take these texts. */
  quadraticOk: boolean;
}

/** Every text the counter counts in a recorded message: its content, each tool call's name, JSON arguments and id. */
export function sessionTexts(path: string): string[] {
  const texts: string[] = [];
  for (const { messages } of loadTraceSessions(path)) {
    for (const message of messages) {
      if (typeof message.content === "string" && message.content !== "") texts.push(message.content);
      if (message instanceof AIMessage) for (const call of message.tool_calls ?? []) texts.push(call.name, JSON.stringify(call.args), call.id ?? "");
    }
  }
  return texts.filter((text) => text !== "");
}

/** The share of a text's characters that are whitespace. */
export function whitespaceShare(text: string): number {
  let spaces = 0;
  for (let index = 0; index < text.length; index++) if (/\s/.test(text[index]!)) spaces++;
  return spaces / text.length;
}

const PACKAGES = ["aiohttp", "anyio", "attrs", "black", "certifi", "charset-normalizer", "click", "coverage", "Django", "docutils", "filelock", "fsspec", "httpx", "idna", "iniconfig", "Jinja2", "jsonschema", "langchain-core", "MarkupSafe", "matplotlib", "mypy-extensions", "networkx", "numpy", "packaging", "pandas", "pillow", "platformdirs", "pluggy", "pydantic", "pydantic_core", "Pygments", "pytest", "pytest-cov", "python-dateutil", "pytz", "PyYAML", "requests", "scikit-learn", "scipy", "setuptools", "six", "sniffio", "SQLAlchemy", "sympy", "tomli", "torch", "tqdm", "typing_extensions", "urllib3", "wheel"];
const WORDS = ["request", "worker", "cache", "session", "started", "finished", "retry", "connection", "timeout", "handler", "queue", "batch", "ok", "GET", "POST", "/api/v1/items", "user_id", "latency_ms"];

/** Generated whitespace-heavy tool outputs, about 200 000 characters each. */
export function whitespaceOutputs(): { name: string; text: string }[] {
  const random = seededRandom(39);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const version = () => `${Math.floor(random() * 30)}.${Math.floor(random() * 20)}.${Math.floor(random() * 10)}`;
  const until = (make: () => string) => {
    let text = "";
    while (text.length < 200_000) text += make();
    return text;
  };
  const pip = "Package                           Version\n--------------------------------- -----------\n" + until(() => `${pick(PACKAGES)}${random() < 0.5 ? `-${pick(WORDS)}` : ""}`.padEnd(34) + version().padEnd(12) + "\n");
  let second = 0;
  const log = until(() => {
    second += Math.floor(random() * 5);
    const time = `2024-05-17 10:${String(Math.floor(second / 60) % 60).padStart(2, "0")}:${String(second % 60).padStart(2, "0")},${String(Math.floor(random() * 1000)).padStart(3, "0")}`;
    return `${time}  ${pick(["INFO", "DEBUG", "WARNING", "ERROR"]).padEnd(8)} [${pick(WORDS).padEnd(14)}] ${pick(WORDS)} ${pick(WORDS)}=${Math.floor(random() * 10_000)}${" ".repeat(Math.floor(random() * 40))}\n`;
  });
  const ls = "total 1234\n" + until(() => `${pick(["-rw-r--r--", "drwxr-xr-x", "-rwxr-xr-x"])} ${String(1 + Math.floor(random() * 9)).padStart(3)} root root ${String(Math.floor(random() * 10 ** (1 + Math.floor(random() * 7)))).padStart(9)} May 17 10:${String(Math.floor(random() * 60)).padStart(2, "0")} ${pick(PACKAGES).toLowerCase()}${pick([".py", ".txt", "", ".json", ".cfg"])}\n`);
  const columns = ["id", "name", "score", "created_at", "description"];
  const frame = columns.map((column) => column.padStart(24)).join("") + "\n" + until(() => `${String(Math.floor(random() * 1e6)).padStart(24)}${pick(WORDS).padStart(24)}${(random() * 100).toFixed(4).padStart(24)}${"2024-05-17".padStart(24)}${`${pick(WORDS)} ${pick(WORDS)}`.padStart(24)}${" ".repeat(Math.floor(random() * 80))}\n`);
  const pytest = until(() => `tests/test_${pick(WORDS).replace(/\W/g, "")}.py::test_${pick(WORDS).replace(/\W/g, "")}_${Math.floor(random() * 100)} ${pick(["PASSED", "PASSED", "PASSED", "FAILED", "SKIPPED"])}${" ".repeat(20 + Math.floor(random() * 40))}[${String(Math.floor(random() * 100)).padStart(3)}%]\n`);
  return [
    { name: "pip list", text: pip },
    { name: "log", text: log },
    { name: "ls -l", text: ls },
    { name: "data frame", text: frame },
    { name: "pytest -v", text: pytest },
  ];
}

/** Makers of one long run of `length` characters: without a space, of whitespace, and a base64 blob. */
export const LONG_RUNS: Record<string, (length: number) => string> = {
  "x run": (length) => "x".repeat(length),
  "spaces": (length) => " ".repeat(length),
  "whitespace mix": (length) => " \t \n  \r\n   \n".repeat(Math.ceil(length / 12)).slice(0, length),
  "base64 blob": (length) => {
    const random = seededRandom(length);
    return Buffer.from(Array.from({ length: Math.ceil((length * 3) / 4) }, () => Math.floor(random() * 256)))
      .toString("base64")
      .slice(0, length);
  },
};

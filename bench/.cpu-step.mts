import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createTokenCounter, toolResultHiding } from "../src/index.js";
import { seededRandom } from "./synthetic.js";
function agent(seed: number, repeated: boolean) {
  const random = seededRandom(seed); let calls = 0;
  const out = () => { const lines: string[] = []; const size = Math.round(100 * Math.pow(15, random())); let n = 0; while (n < size) { const l = `src/module_${Math.floor(random()*500)}/file_${Math.floor(random()*90)}.ts`; lines.push(l); n += l.length + 1; } return lines.join("\n"); };
  const step = (): BaseMessage[] => { calls++; const id = `call_${calls}`; const command = repeated ? "ls" : `grep -rn "symbol_${calls}" src/`;
    return [new AIMessage({ id: `ai_${calls}`, content: "", tool_calls: [{ id, name: "bash", args: { command }, type: "tool_call" }] }), new ToolMessage({ id: `tool_${calls}`, tool_call_id: id, name: "bash", content: out() })]; };
  return { step };
}
for (const repeated of [true, false]) for (const sup of [true, false]) {
  const a = agent(42, repeated);
  const base: BaseMessage[] = [new SystemMessage("s"), new HumanMessage("t")]; while (base.length + 2 <= 8000) base.push(...a.step());
  const steps = Array.from({ length: 205 }, () => a.step());
  const h = toolResultHiding({ tokenCounter: createTokenCounter(), ...(sup ? {} : { supersession: false }) });
  let m = (await h.compact(base)).messages; const cpu: number[] = []; let fired = 0;
  for (let i = 0; i < steps.length; i++) { const g = [...m, ...steps[i]!]; const c0 = process.cpuUsage(); const r = await h.compact(g); const c = process.cpuUsage(c0); m = r.messages; if (i >= 5) { cpu.push((c.user + c.system) / 1000); if (r.status === "compacted") fired++; } }
  cpu.sort((x, y) => x - y);
  console.log(`${repeated ? "ls " : "new"} sup=${sup} cpu median ${cpu[100]!.toFixed(3)} ms p25 ${cpu[50]!.toFixed(3)} mean ${(cpu.reduce((x, y) => x + y, 0) / cpu.length).toFixed(3)} fired ${fired}`);
}

import { hidingStep } from "./hiding-step.js";
const r = await hidingStep({ size: 8000, warmupSteps: 5, steps: Number(process.env.STEPS ?? 300), seed: 42 });
console.log(r.rows.map(x => `${x.history} ${x.supersession} ${x.timing.medianMs.toFixed(3)}`).join("\n"));

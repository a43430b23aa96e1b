import { fakeModel } from "@langchain/core/testing";
import { CompactionStrategy } from "../../../src/extend/index.js";
import type { StrategyOutcome } from "../../../src/strategies/compaction-strategy.js";
import { assistant } from "../../support/builders.js";

/** A model that calls `lookup` `steps` times (calls c1..cN, messages a1..aN) and then answers (message "final"). */
export function scriptedModel(steps: number) {
  const model = fakeModel();
  for (let n = 1; n <= steps; n++) model.respond(assistant(`a${n}`, `step ${n}`, [{ id: `c${n}`, name: "lookup", args: { query: `q${n}` } }]));
  return model.respond(assistant("final", "done"));
}

/** A compactor that throws "summary model down", as a summary model that is down would. */
export class Failing extends CompactionStrategy {
  readonly strategyName = "failing";
  constructor() {
    super({});
  }
  protected async run(): Promise<StrategyOutcome> {
    throw new Error("summary model down");
  }
}

import { describe, expect, it } from "vitest";
import { HidingVerdicts } from "../../src/policies/hiding-verdicts.js";
import { assistant, user } from "../support/builders.js";

const history = (count: number) => Array.from({ length: count }, (_, n) => (n % 2 === 0 ? user(`m${n}`, `u${n}`) : assistant(`m${n}`, `a${n}`)));

describe("HidingVerdicts", () => {
  it("gives the verdict back while the history grew from the one judged, by object or by id", () => {
    const verdicts = new HidingVerdicts();
    const judged = history(4);
    verdicts.remember("t", judged, "enough");
    expect(verdicts.reasonFor("t", judged)).toBe("enough");
    expect(verdicts.reasonFor("t", [...judged, ...history(6).slice(4)])).toBe("enough");
    // Read back from a checkpoint: new objects, same ids.
    expect(verdicts.reasonFor("t", history(5))).toBe("enough");
    expect(verdicts.reasonFor("other", judged)).toBeUndefined();
  });

  it("gives nothing for a shorter history, one whose judged message is gone, or after forget", () => {
    const verdicts = new HidingVerdicts();
    const judged = history(4);
    verdicts.remember("t", judged, "enough");
    expect(verdicts.reasonFor("t", judged.slice(0, 3))).toBeUndefined();
    expect(verdicts.reasonFor("t", [...judged.slice(0, 2), ...judged.slice(3), user("m9", "new")])).toBeUndefined();
    verdicts.forget("t");
    expect(verdicts.reasonFor("t", judged)).toBeUndefined();
  });
});

/**
 * How many turns of the microtask queue pass until `run()`'s promise has settled and the caller
 * resumes: each await of a step lets every microtask queued before it run first (another thread's
 * work, in a server), so a step that resolves in fewer turns waits less behind others.
 */
export async function microtaskTurns(run: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let settled = false;
  const turn = () => {
    if (settled || turns >= 10_000) return;
    turns++;
    queueMicrotask(turn);
  };
  queueMicrotask(turn);
  await run();
  settled = true;
  return turns;
}

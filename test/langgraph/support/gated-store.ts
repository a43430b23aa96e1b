import { InMemoryStore } from "@langchain/langgraph";

/** A store whose puts wait for `release()` and then succeed, or fail with `failure`. */
export class GatedStore extends InMemoryStore {
  putsStarted = 0;
  putsDone = 0;
  #release: () => void = () => undefined;
  readonly #gate = new Promise<void>((resolve) => (this.#release = resolve));

  constructor(readonly failure?: string) {
    super();
  }

  release(): void {
    this.#release();
  }

  /** Counts the archive's puts (not the log records', written beside them under the "log" label). */
  override async put(...args: Parameters<InMemoryStore["put"]>): Promise<void> {
    const archive = args[0].at(-1) !== "log";
    if (archive) this.putsStarted++;
    await this.#gate;
    if (this.failure) throw new Error(this.failure);
    await super.put(...args);
    if (archive) this.putsDone++;
  }
}

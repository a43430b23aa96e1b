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

  override async put(...args: Parameters<InMemoryStore["put"]>): Promise<void> {
    this.putsStarted++;
    await this.#gate;
    if (this.failure) throw new Error(this.failure);
    await super.put(...args);
    this.putsDone++;
  }
}

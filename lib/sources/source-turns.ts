// One process's turns on each source: its puller and the pull requests it runs take the source's lease under
// the same name (the runtime's), so within the process they go one after another. A request that waits marks
// the source wanted, and the puller ends its round at the next page instead of draining on (pull-source.ts).

export class SourceTurns {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly waiting = new Map<string, number>();

  /** Whether a pull request waits for this process's turn on `source`. */
  wanted(source: string): boolean {
    return (this.waiting.get(source) ?? 0) > 0;
  }

  /** Runs `fn` once the turns on `source` before it have ended. */
  async run<T>(source: string, fn: () => Promise<T>, { wants = true } = {}): Promise<T> {
    if (wants) this.waiting.set(source, (this.waiting.get(source) ?? 0) + 1);
    const before = this.tails.get(source) ?? Promise.resolve();
    const mine = before
      .catch(() => undefined)
      .then(() => {
        if (wants) this.waiting.set(source, (this.waiting.get(source) ?? 1) - 1);
        return fn();
      });
    const tail = mine.catch(() => undefined);
    this.tails.set(source, tail);
    try {
      return await mine;
    } finally {
      if (this.tails.get(source) === tail) this.tails.delete(source);
      if (this.waiting.get(source) === 0) this.waiting.delete(source);
    }
  }
}

/**
 * Completes jobs whose handler returned without `ctx.transaction` in groups: every completion asked
 * for in one turn of the event loop, and all those asked for while an UPDATE is in flight, go in
 * one `completeJobs` statement (still only where this worker holds the lease). A job is marked done
 * only after its handler returned, as before; its room in the lane is given back once its UPDATE
 * answered.
 */
export class CompletionBatcher {
  private waiting: Array<{ id: string; resolve: (completed: boolean) => void; reject: (error: unknown) => void }> = [];
  private flushing = false;

  constructor(private readonly flush: (ids: string[]) => Promise<string[]>) {}

  complete(id: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ id, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.run());
      }
    });
  }

  private async run(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, 1000);
      try {
        const completed = new Set(await this.flush(batch.map((entry) => entry.id)));
        for (const entry of batch) {
          entry.resolve(completed.has(entry.id));
        }
      } catch (error) {
        for (const entry of batch) {
          entry.reject(error);
        }
      }
    }
    this.flushing = false;
  }
}

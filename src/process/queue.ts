// The one push → pull queue: callbacks push, one consumer pulls with `for await`. An optional
// `coalesce` replaces the last queued item instead of appending (a flooding producer then cannot
// grow memory without bound). Closing ends the iteration once the queue is drained.

export class AsyncQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private waiter: (() => void) | undefined;
  private closed = false;

  constructor(private readonly coalesce?: (last: T, next: T) => boolean) {}

  push(item: T): void {
    if (this.closed) return;
    const last = this.items[this.items.length - 1];
    if (last !== undefined && this.coalesce?.(last, item)) this.items[this.items.length - 1] = item;
    else this.items.push(item);
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      if (this.items.length > 0) {
        yield this.items.shift() as T;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((r) => {
        this.waiter = r;
      });
    }
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }
}

// A small push → pull queue that turns callbacks into an async iterable; progress notes coalesce so a
// flooding agent cannot grow memory without bound.
import type { AgentEvent } from "./port.js";

export class EventQueue {
  private items: AgentEvent[] = [];
  private waiter: (() => void) | undefined;
  private closed = false;

  push(e: AgentEvent): void {
    if (this.closed) return;
    const last = this.items[this.items.length - 1];
    if (e.type === "progress" && last?.type === "progress") this.items[this.items.length - 1] = e;
    else this.items.push(e);
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  async *drain(): AsyncGenerator<AgentEvent> {
    for (;;) {
      const next = this.items.shift();
      if (next) {
        yield next;
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

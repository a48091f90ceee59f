// Tests await the seat's events (daemon/events.ts: SeatEvents), never poll its state: a monitor listens to
// every event of one seat from its start, keeps them in order, and `next` resolves with the first event of
// a name that matches — one already told included — or fails naming what it waited for.
import { type SeatEvents, SEAT_EVENTS } from "../../src/daemon/events.js";
import type { Daemon } from "../../src/daemon/daemon.js";

type Name = keyof SeatEvents & string;
type Payload<K extends Name> = SeatEvents[K] extends [infer P, ...unknown[]] ? P : undefined;

interface Waiter {
  name: Name;
  match: (p: unknown) => boolean;
  resolve: (p: unknown) => void;
}

export class SeatMonitor {
  readonly seen: { name: Name; payload: unknown }[] = [];
  private waiters: Waiter[] = [];

  constructor(seat: Pick<Daemon, "on">) {
    for (const name of SEAT_EVENTS)
      seat.on(name, ((payload: unknown) => {
        this.seen.push({ name, payload });
        for (const w of [...this.waiters]) if (w.name === name && w.match(payload)) this.settle(w, payload);
      }) as never);
  }

  private settle(w: Waiter, p: unknown): void {
    this.waiters = this.waiters.filter((x) => x !== w);
    w.resolve(p);
  }

  /** Events of a name seen so far (that match). */
  all<K extends Name>(name: K, match: (p: Payload<K>) => boolean = () => true): Payload<K>[] {
    return this.seen.filter((e) => e.name === name && match(e.payload as Payload<K>)).map((e) => e.payload as Payload<K>);
  }

  /**
   * The first event `name` that matches, seen already (from the `nth` match on, 1-based) or still to come;
   * fails after `ms` naming what it waited for and what the seat said meanwhile.
   */
  next<K extends Name>(name: K, match: (p: Payload<K>) => boolean = () => true, o: { ms?: number; nth?: number } = {}): Promise<Payload<K>> {
    const nth = o.nth ?? 1;
    const had = this.all(name, match);
    if (had.length >= nth) return Promise.resolve(had[nth - 1] as Payload<K>);
    let count = had.length;
    return new Promise<Payload<K>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== waiter);
        const last = this.seen.slice(-8).map((e) => `${e.name} ${JSON.stringify(e.payload)?.slice(0, 160)}`);
        reject(new Error(`timed out waiting for ${name}${nth > 1 ? ` (#${nth})` : ""}; the seat's last events:\n${last.join("\n")}`));
      }, o.ms ?? 30_000);
      const waiter: Waiter = {
        name,
        match: (p) => match(p as Payload<K>) && ++count >= nth,
        resolve: (p) => {
          clearTimeout(timer);
          resolve(p as Payload<K>);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** The phase event of a task reaching `phase`. */
  phase(taskId: string, phase: Payload<"run:phase">["phase"], ms?: number) {
    return this.next("run:phase", (e) => e.taskId === taskId && e.phase === phase, { ms });
  }

  /** The close of a task's run. */
  closed(taskId: string, ms?: number) {
    return this.next("run:closed", (r) => r.taskId === taskId, { ms });
  }
}

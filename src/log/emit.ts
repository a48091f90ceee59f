// Typed events told guardedly: every listener gets each event, and one that throws is reported (`onError`)
// without keeping the event from the others or reaching the code that told it — a run's close is reported
// exactly once, a lease keeps beating, whatever a listener does. The one emitter of the seat's, its runs'
// and its leases' event maps (daemon/events.ts, run/events.ts, lease/held.ts): listen with `on`/`once`,
// tell with `tell` (never `emit`, which lets a listener's throw out).
import { EventEmitter } from "node:events";

/** An event map: each event's name and the arguments its listeners get. */
export type EventMap<T> = { [K in keyof T]: unknown[] };

export class Events<T extends EventMap<T>> extends EventEmitter<T> {
  constructor(private readonly onError: (event: string, err: unknown) => void = () => undefined) {
    super();
    // Many runs' listeners on one seat map are normal; a leak shows in the listener count, not a warning.
    this.setMaxListeners(0);
  }

  /** Every listener hears it, in order; a throwing one is reported and the rest go on. */
  tell<K extends keyof T & string>(event: K, ...args: T[K]): void {
    for (const l of this.rawListeners(event as never) as unknown as ((...a: unknown[]) => void)[])
      try {
        l.apply(this, args);
      } catch (err) {
        this.onError(event, err);
      }
  }
}

// What the seat holds once it started, given back when it stops: each holder pushes its releaser as it is
// taken (the alerts' sender, the boards' call servers, the status file's last write), and they are released
// last-in-first-out — each guarded (a throwing releaser is logged, the next one still runs), the first
// error kept for the caller (graphile/worker's withReleasers).
import { describeError } from "../errors/index.js";
import type { Logger } from "../log/logger.js";

export class Releasers {
  private readonly list: { name: string; release: () => unknown }[] = [];

  push(name: string, release: () => unknown): void {
    this.list.push({ name, release });
  }

  /** Releases every one (the last pushed first); the first error, or null. */
  async releaseAll(log: Logger): Promise<unknown> {
    let first: unknown = null;
    for (const r of this.list.splice(0).reverse())
      try {
        await r.release();
      } catch (err) {
        log.error({ releaser: r.name, err: describeError(err) }, "a part of the seat could not be released at its stop");
        first ??= err;
      }
    return first;
  }
}

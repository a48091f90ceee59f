// What a scope holds once it opened, given back when it ends — the seat's start (the alerts' sender, the
// boards' call servers, the status file's last write) and a run's work phase (the stop ladder, the lease's
// hold, the task tools, the run's cell): each holder pushes its releaser as it is taken, and they are
// released last-in-first-out — each guarded (a throwing releaser is reported, the next one still runs),
// the first error kept for the caller (graphile/worker's withReleasers).
export class Releasers {
  private readonly list: { name: string; release: () => unknown }[] = [];

  push(name: string, release: () => unknown): void {
    this.list.push({ name, release });
  }

  /** Releases every one (the last pushed first), each failure reported by name; the first error, or null. */
  async releaseAll(onError: (name: string, err: unknown) => void): Promise<unknown> {
    let first: unknown = null;
    for (const r of this.list.splice(0).reverse())
      try {
        await r.release();
      } catch (err) {
        onError(r.name, err);
        first ??= err;
      }
    return first;
  }
}

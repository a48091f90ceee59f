// A fake server's requests as events a test awaits (never polls): `arrived(n)` settles once the n-th
// request has come, at once if it already has.
export class Arrivals {
  private count = 0;
  private waiting: { n: number; resolve: () => void }[] = [];

  /** One more request came. */
  note(): void {
    this.count += 1;
    const ready = this.waiting.filter((w) => w.n <= this.count);
    this.waiting = this.waiting.filter((w) => w.n > this.count);
    for (const w of ready) w.resolve();
  }

  arrived(n: number, ms = 60_000): Promise<void> {
    if (this.count >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for request #${n} (${this.count} came)`)), ms);
      this.waiting.push({
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }
}

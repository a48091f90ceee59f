// Rules with one home, checked where a grep can check them: a claim's clock (deadlines, the polite stop,
// renewals: lease/clock.ts, from the timing values of config/timing.ts) and a kind's polite stop signal
// (its descriptor's `stopSignal`) are computed nowhere else.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return p === join("src", "emulator") ? [] : sources(p);
    return p.endsWith(".ts") ? [p] : [];
  });
}
const files = sources("src").map((f) => ({ f, text: readFileSync(f, "utf8") }));
const offenders = (re: RegExp, allowed: (f: string) => boolean) => files.filter(({ f, text }) => !allowed(f) && re.test(text)).map(({ f }) => f);

describe("one home", () => {
  it("a claim's deadline, polite stop and heartbeat are computed by the lease clock alone", () => {
    expect(offenders(/(safetySeconds|wrapUpSeconds|heartbeatSeconds)\s*\*\s*1000/, (f) => f === join("src", "lease", "clock.ts"))).toEqual([]);
  });

  it("a polite stop signal is spelled only by the kinds' descriptors (and the process runner's mechanism)", () => {
    const polite = /politeSignal\s*[:=?]+\s*"SIG|stopSignal\s*\?\?|politeSignal\s*\?\?\s*"SIG/;
    expect(offenders(polite, (f) => f.startsWith(join("src", "process")))).toEqual([]);
    const kinds = files.filter(({ f }) => /src\/agents\/[^/]+\/kind\.ts$/.test(f));
    expect(kinds.length).toBeGreaterThan(3);
    for (const { f, text } of kinds) expect(text, f).toMatch(/stopSignal: "SIG[A-Z]+"/);
  });
});

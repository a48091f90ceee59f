// The hubs a test started (hermes.share: host, src/board/hub.mts): they end by themselves once idle; a test
// ends them at once (SIGTERM, the hub's own way out), found by their share directory on their command line.
import { readFileSync, readdirSync } from "node:fs";

/** Ends every hub whose command line names one of `dirs` (its share directory). */
export function endHubs(dirs: readonly string[]): void {
  for (const d of readdirSync("/proc").filter((p) => /^\d+$/.test(p)))
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8");
      if (cmd.includes("hub.mjs") && dirs.some((x) => cmd.includes(x))) process.kill(Number(d), "SIGTERM");
    } catch {
      // gone
    }
}

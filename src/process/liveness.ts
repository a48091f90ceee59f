// Is a recorded process still the same process? pid + start time (from /proc), so a reused pid is
// never mistaken for our agent.
import { readFileSync } from "node:fs";

/** Start time of a process in clock ticks since boot (/proc/<pid>/stat field 22), or null. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm (field 2) may contain spaces and parentheses: split after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const state = rest[0];
    if (state === "Z" || state === "X") return null;
    return rest[19] ?? null;
  } catch {
    return null;
  }
}

export function sameProcessAlive(pid: number, startTime: string | null): boolean {
  const now = processStartTime(pid);
  if (now === null) return false;
  return startTime === null || now === startTime;
}

// A state file that does not parse, or points where the bridge never writes, is moved aside (never
// trusted, never deleted) and reported: in the log, in `status`, and here until someone takes it.
import { renameSync } from "node:fs";

const reported: { file: string; movedTo: string | null; why: string; at: string }[] = [];

export function quarantine(file: string, why: string): void {
  const movedTo = `${file}.quarantined-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  try {
    renameSync(file, movedTo);
    reported.push({ file, movedTo, why, at: new Date().toISOString() });
  } catch {
    reported.push({ file, movedTo: null, why, at: new Date().toISOString() });
  }
}

/** A state file with bad parts that stays in place (the good parts are used). */
export function reportBadState(file: string, why: string): void {
  reported.push({ file, movedTo: null, why, at: new Date().toISOString() });
}

/** Quarantined entries since the last call (the daemon logs them and keeps them in its status). */
export function takeQuarantined(): { file: string; movedTo: string | null; why: string; at: string }[] {
  return reported.splice(0, reported.length);
}

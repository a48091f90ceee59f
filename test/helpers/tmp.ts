// A temporary dir for a test's seats and workspaces, passable by every uid (0711, never listable): a
// bridge running as root (CI) runs its agents as another user, whose jail must pass it to a run's dir.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";

export function passableTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o711);
  return dir;
}

/** A scratch dir of a test's own, removed when that test ends (passed or failed). Only inside a test. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

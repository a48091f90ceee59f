// `doctor`'s rows about the board's Hermes itself: its version against the advisory every release below
// 0.21.6 carries (Tenable TRA-2026-65, a session-takeover flaw in Hermes's own login flow, CVSS 8.8; fixed in
// 0.21.6 of 2026-10-08), and a board whose database is corrupt, with the command that repairs it. A warning,
// not a failure: the bridge itself runs on 0.20 and later — what it can do is read from `--help`, never from
// this version line (board/capabilities.ts).
import { BoardCorrupt } from "../errors/board.js";
import type { Check } from "./check.js";

export const ADVISORY = "Tenable TRA-2026-65";
const FIXED_IN = [0, 21, 6] as const;

/** `a` is below `b` (dotted numbers). */
function below(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < b.length; i += 1) if ((a[i] ?? 0) !== b[i]) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
}

/** The version row: the version the CLI names (parsed from `hermes --version`), or null when it names none. */
export function versionCheck(version: string | null): Check {
  const name = "hermes version";
  const fix = "upgrade Hermes where the board's CLI runs to 0.21.6 or later (`hermes update`), then restart the gateway (`hermes gateway start`)";
  if (version === null)
    return { name, ok: true, warn: true, detail: `the CLI's version line names no version: cannot tell whether it has ${ADVISORY} (fixed in 0.21.6)`, fix };
  const v = version.split(".").map((n) => Number.parseInt(n, 10));
  if (below(v, FIXED_IN))
    return {
      name,
      ok: true,
      warn: true,
      detail: `Hermes ${version} is below 0.21.6: it has ${ADVISORY} (a session takeover in Hermes's own login flow, CVSS 8.8). The bridge runs on it (capabilities are read from --help)`,
      fix,
    };
  return { name, ok: true, detail: `Hermes ${version} (0.21.6 or later: ${ADVISORY} fixed)`, fix: "" };
}

/** What to do about a board whose read failed: its repair when the database is corrupt. */
export function boardFix(err: unknown): string | null {
  if (!(err instanceof BoardCorrupt)) return null;
  const backup = err.backupPath ? ` (Hermes kept a copy: ${err.backupPath})` : "";
  return `run \`${err.repair}\`${backup}; a running seat has paused this board and resumes by itself once it answers`;
}

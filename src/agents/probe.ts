// What an agent reports on its own stream is its word: a usage limit or a lost login it prints would
// park the seat (and hand the task to the next seat, which the same task text can steer the same way).
// So the bridge asks for itself, from outside the jail: the kind's own CLI, with the seat's credentials
// in a fresh home and one trivial prompt of the bridge's, in an empty folder — the cheapest request that
// meets the same limit or the same 401. Its answer confirms the claim, refutes it, or cannot tell.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { describeError } from "../errors/index.js";
import { runProcess } from "../process/runner.js";
import { type CliHomeLayout, freshHome } from "./cli-home.js";
import type { AgentEvent } from "./port.js";

/** What a run claimed that would pause the seat. */
export type Claim = "limit" | "auth";

export interface ClaimCheck {
  verdict: "confirmed" | "refuted" | "unknown";
  /** What the check saw, in a few words (for the card and the log). */
  detail: string;
  /** The reset time the check itself met (a confirmed limit). */
  resetsAt?: number | null;
}

/** The one prompt every probe sends: the bridge's own, never task text. */
export const PROBE_PROMPT = "Reply with the single word OK.";

export interface ProbeRun {
  argv: string[];
  env: Record<string, string>;
  /** One stdout line → the kind's events (its translator). */
  translate: (line: string) => AgentEvent[];
}

/** Runs a probe in a fresh home with the seat's login (made in `scratch`), and says what it met. */
export async function probeSeat(o: {
  layout: CliHomeLayout;
  login: string;
  /** A folder of the bridge's own (the state dir's private one) for the probe's home and cwd. */
  scratch: string;
  make: (home: string, cwd: string) => ProbeRun;
  timeoutMs?: number;
}): Promise<{ limit: { resetsAt: number | null; message: string } | null; auth: string | null; ok: boolean; detail: string }> {
  await mkdir(o.scratch, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(join(o.scratch, "probe-"));
  try {
    const home = join(dir, "home");
    const cwd = join(dir, "cwd");
    await freshHome({ layout: o.layout, login: o.login, home });
    await mkdir(cwd, { mode: 0o700 });
    const p = o.make(home, cwd);
    const events: AgentEvent[] = [];
    const r = await runProcess({
      argv: p.argv,
      cwd,
      env: p.env,
      timeoutMs: o.timeoutMs ?? 90_000,
      onStdoutLine: (line) => events.push(...p.translate(line)),
    });
    const limit = events.find((e): e is Extract<AgentEvent, { type: "limit" }> => e.type === "limit");
    const auth = events.find((e): e is Extract<AgentEvent, { type: "auth_failed" }> => e.type === "auth_failed");
    const ok = !limit && !auth && r.reason === "exited" && r.exitCode === 0;
    const detail = limit
      ? `the seat's own request met the limit (${limit.message.slice(0, 120)})`
      : auth
        ? `the seat's own request was refused (${auth.message.slice(0, 120)})`
        : ok
          ? "the seat's own request went through"
          : `the check itself did not finish (${r.reason}${r.exitCode !== null ? ` ${r.exitCode}` : ""}: ${(r.stderr || r.stdout).trim().split("\n").at(-1)?.slice(0, 160) ?? ""})`;
    return { limit: limit ? { resetsAt: limit.resetsAt, message: limit.message } : null, auth: auth?.message ?? null, ok, detail };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** The verdict on `claim` from what a probe met. */
/** A probe's answer about a login: the API took it (a limit too is an answer to a login it took). */
export function loginWorks(p: Awaited<ReturnType<typeof probeSeat>>): boolean {
  return p.auth === null && (p.ok || p.limit !== null);
}

export function verdictOf(claim: Claim, p: Awaited<ReturnType<typeof probeSeat>>): ClaimCheck {
  if (claim === "limit" && p.limit) return { verdict: "confirmed", detail: p.detail, resetsAt: p.limit.resetsAt };
  if (claim === "auth" && p.auth) return { verdict: "confirmed", detail: p.detail };
  if (p.ok) return { verdict: "refuted", detail: p.detail };
  return { verdict: "unknown", detail: p.detail };
}

/** A check that never throws: an error is an `unknown` verdict. */
export async function checked(f: () => Promise<ClaimCheck>): Promise<ClaimCheck> {
  try {
    return await f();
  } catch (err) {
    return { verdict: "unknown", detail: `the check failed: ${describeError(err)}` };
  }
}

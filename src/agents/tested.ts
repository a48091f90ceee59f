// The agent CLIs' versions this bridge was tested with, in one home: per CLI the oldest tested and the pinned one
// (the project's devDependency, which `npm test` runs; test/unit/tested-versions.test.ts keeps the two equal).
// A kind names its row (AgentKind.tested); the seat's start and `doctor` read the installed version against it:
// in range — said; newer — it runs, with a warning naming the tested range; older than the oldest — refused, with the
// install line. `npm run test:newest-agents` runs the real-CLI lane on npm's newest and prints the same rows.
import type { Logger } from "../log/logger.js";
import { runProcess } from "../process/runner.js";

export interface TestedRange {
  /** The CLI's npm package (the install line of a fix). */
  npm: string;
  /** The oldest version the lanes passed with. */
  min: string;
  /** The version the project pins and `npm test` runs. */
  pinned: string;
}

export const TESTED_VERSIONS = {
  /** 2.1.197 (2026-06-30) passed the real-CLI lane before the tool search; 2.1.332 (2026-11-24) is npm's newest at pinning. */
  claudeCode: { npm: "@anthropic-ai/claude-code", min: "2.1.197", pinned: "2.1.332" },
  codex: { npm: "@openai/codex", min: "0.171.0", pinned: "0.171.0" },
} as const satisfies Record<string, TestedRange>;

export type VersionVerdict =
  | { state: "tested"; version: string; detail: string }
  | { state: "newer"; version: string; detail: string }
  | { state: "older"; version: string; detail: string; fix: string }
  | { state: "unknown"; version: null; detail: string };

const parts = (v: string) => v.split(".").map((n) => Number.parseInt(n, 10));
/** -1, 0, 1 as a is older than, the same as or newer than b (numeric, dot by dot). */
export function compareVersions(a: string, b: string): number {
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** The first dotted version in what `--version` printed ("2.1.332 (Claude Code)", "codex-cli 0.171.0"). */
export const versionIn = (text: string): string | null => /\b(\d+\.\d+\.\d+)\b/.exec(text)?.[1] ?? null;

/** The installed version against the tested range, in words an operator acts on. */
export function judgeVersion(program: string, printed: string, t: TestedRange): VersionVerdict {
  const v = versionIn(printed);
  const range = t.min === t.pinned ? t.pinned : `${t.min}–${t.pinned}`;
  if (!v)
    return { state: "unknown", version: null, detail: `${program} --version printed no version (${JSON.stringify(printed.slice(0, 80))}); tested: ${range}` };
  if (compareVersions(v, t.min) < 0)
    return {
      state: "older",
      version: v,
      detail: `${program} ${v} is older than any version this bridge was tested with (${range})`,
      fix: `npm install -g ${t.npm}@${t.pinned} (or any version in ${range}), or point agent.command at one`,
    };
  if (compareVersions(v, t.pinned) > 0)
    return { state: "newer", version: v, detail: `${program} ${v} is newer than tested (${range}): it runs; if a run misbehaves, pin ${t.npm}@${t.pinned}` };
  return { state: "tested", version: v, detail: `${program} ${v} (tested: ${range})` };
}

/** Runs `<command> --version` (outside the jail, as the bridge's user, with the agent's environment) and judges it. */
export async function checkVersion(command: readonly string[], env: Record<string, string>, t: TestedRange): Promise<VersionVerdict> {
  const r = await runProcess({ argv: [...command, "--version"], env, timeoutMs: 30_000, cwd: "/" });
  const program = command.join(" ");
  if (r.reason === "spawn_failed") return { state: "unknown", version: null, detail: `${program} --version did not start: ${r.spawnError?.message ?? "?"}` };
  return judgeVersion(program, `${r.stdout}\n${r.stderr}`, t);
}

/** The seat's start log: the installed CLI's version, said at every start and warned when untested (an older one was refused). */
export function logVersion(log: Pick<Logger, "info" | "warn">, v: VersionVerdict): void {
  if (v.state === "tested") log.info({ version: v.version, detail: v.detail }, "agent version");
  else if (v.state !== "older") log.warn({ version: v.version, detail: v.detail }, "agent version not tested");
}

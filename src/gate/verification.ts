// Verification commands: from config, and — only when the operator turns body verification on and
// allow-lists them — from a `## Verification` section of the task body (first fenced code block, one
// command per line). Run by the bridge itself in the workspace, in a shell, with a timeout and a
// capped output tail.
import { type JailedCommand, type RunJail, launchOf } from "../jail/jail.js";
import { runProcess } from "../process/runner.js";

export interface VerificationResult {
  command: string;
  exit_code: number | null;
  duration_ms: number;
  output_tail: string;
  timed_out?: boolean;
}

/** Commands of the body's `## Verification` section (none when absent). */
export function verificationFromBody(body: string | null): string[] {
  if (!body) return [];
  const lines = body.split("\n");
  const start = lines.findIndex((l) => /^##\s+verification\s*$/i.test(l.trim()));
  if (start === -1) return [];
  const out: string[] = [];
  let inFence = false;
  for (const line of lines.slice(start + 1)) {
    if (!inFence && /^#{1,2}\s/.test(line.trim())) break; // next section
    if (/^(```|~~~)/.test(line.trim())) {
      if (inFence) break;
      inFence = true;
      continue;
    }
    if (inFence && line.trim() && !line.trim().startsWith("#")) out.push(line.trim());
  }
  return out;
}

/** Which commands run: the configured ones, and body commands only when allowed (task text is untrusted). */
export function verificationPlan(
  cfg: { commands: readonly string[]; bodyVerification: boolean; allowedCommands: readonly string[] },
  body: string | null,
): { run: string[]; skipped: string[] } {
  const fromBody = verificationFromBody(body);
  if (!cfg.bodyVerification) return { run: [...cfg.commands], skipped: fromBody };
  const allowed = (cmd: string) =>
    cfg.allowedCommands.some((a) => {
      if (a.length > 2 && a.startsWith("/") && a.endsWith("/")) {
        try {
          return new RegExp(`^(?:${a.slice(1, -1)})$`).test(cmd);
        } catch {
          return false;
        }
      }
      return cmd === a || cmd.startsWith(`${a} `);
    });
  return { run: [...cfg.commands, ...fromBody.filter(allowed)], skipped: fromBody.filter((c) => !allowed(c)) };
}

export async function runVerification(
  commands: readonly string[],
  o: {
    cwd: string;
    env: Record<string, string>;
    timeoutMs: number;
    tailChars: number;
    signal: AbortSignal;
    /** The commands run what the agent left in the workspace: inside the agent's jail, like the agent. */
    jail?: RunJail | undefined;
  },
): Promise<VerificationResult[]> {
  const results: VerificationResult[] = [];
  for (const command of commands) {
    if (o.signal.aborted) break;
    const sh = ["/bin/sh", "-c", command];
    const started: JailedCommand = o.jail ? await o.jail.command(sh, o.env, { withoutRunDir: true }) : { argv: sh, env: o.env };
    const r = await runProcess({
      ...launchOf(started),
      cwd: o.cwd,
      jailed: o.jail?.mode === "bwrap",
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      captureLimit: o.tailChars * 4,
      killGraceMs: 2000,
    });
    const output = `${r.stdout}${r.stderr ? `\n${r.stderr}` : ""}`.trim();
    const res: VerificationResult = {
      command,
      exit_code: r.reason === "exited" ? r.exitCode : null,
      duration_ms: r.durationMs,
      output_tail: output.length > o.tailChars ? `…${output.slice(output.length - o.tailChars)}` : output,
    };
    if (r.reason === "timeout") res.timed_out = true;
    results.push(res);
    if (res.exit_code !== 0) break; // the first failure decides; later commands would only add noise
  }
  return results;
}

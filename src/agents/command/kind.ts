// The command agent kind: any program, speaking the outcome-file protocol. What it reports of a usage limit
// or a failed login is its word; the operator may give the seat a way to check it from outside
// (`agent.check`), else such a claim stays unconfirmed (run/work/claims.ts).
import { z } from "zod";
import { agentCommon, argv } from "../../config/fields.js";
import { bundledFile } from "../../config/paths.js";
import { runProcess } from "../../process/runner.js";
import { processOptions } from "../cli-agent.js";
import { agentEnv } from "../env.js";
import { defineKind } from "../kind.js";
import { checked } from "../probe.js";

/** The exit codes of `agent.check` (sysexits): the seat can work, is limited, or its login failed. */
export const CHECK_EXIT = { ok: 0, limited: 75, login: 77 } as const;

const schema = z.strictObject({
  kind: z.literal("command"),
  command: argv,
  /**
   * Run outside the jail, as the bridge's user, when the agent reports a usage limit or a failed login:
   * exit 0 — the seat can work (the claim is refuted); 75 — it is limited (the first stdout line may give
   * the reset, ISO 8601); 77 — its login failed. Anything else, or none: the claim stays unconfirmed.
   */
  check: argv.optional(),
  ...agentCommon,
});

export const commandKind = defineKind({
  kind: "command",
  schema,
  stopSignal: "SIGTERM",
  async create(a, ctx) {
    const { CommandAgent } = await import("./adapter.js");
    return new CommandAgent({ ...processOptions(a, ctx), command: a.command });
  },
  preflight: async () => ({ ok: true, detail: "command agent: nothing to check", fix: "" }),
  check: (claim, a, ctx) =>
    checked(async () => {
      if (!a.check) return { verdict: "unknown", detail: "this agent kind has no way to check it from outside (agent.check is not set)" };
      const r = await runProcess({ argv: a.check, env: agentEnv(ctx.env, a.passEnv, a.env), timeoutMs: 60_000, cwd: "/" });
      const said = r.stdout.trim().split("\n")[0] ?? "";
      if (r.exitCode === CHECK_EXIT.ok) return { verdict: "refuted", detail: "agent.check says the seat can work" };
      if (r.exitCode === CHECK_EXIT.limited && claim === "limit") {
        const at = Date.parse(said);
        return { verdict: "confirmed", detail: "agent.check says the seat is limited", resetsAt: Number.isFinite(at) ? at : null };
      }
      if (r.exitCode === CHECK_EXIT.login && claim === "auth") return { verdict: "confirmed", detail: "agent.check says the seat's login failed" };
      return { verdict: "unknown", detail: `agent.check ended ${r.exitCode ?? r.signal ?? r.reason}${said ? `: ${said.slice(0, 120)}` : ""}` };
    }),
  promptFile: (a) => a.promptFile ?? bundledFile("prompts", "command.md"),
  program: (a) => a.command[0],
});

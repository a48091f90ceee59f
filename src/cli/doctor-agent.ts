// `doctor`'s rows about the seat's agent: its program, its login (the kind's pre-flight), its version against the
// tested range (agents/tested.ts), and a subscription whose login an API key in the seat's environment would override.
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { kindOf, preflight } from "../agents/kinds.js";
import type { Config } from "../config/schema.js";
import type { Check } from "./check.js";

function onPath(cmd: string, env: NodeJS.ProcessEnv): boolean {
  const ok = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (cmd.includes("/")) return ok(isAbsolute(cmd) ? cmd : join(process.cwd(), cmd));
  return (env.PATH ?? "").split(delimiter).some((d) => d && ok(join(d, cmd)));
}

const row = (name: string, ok: boolean, detail: string, fix = "", warn = false): Check => ({ name, ok, detail, fix, ...(warn ? { warn } : {}) });

export async function agentChecks(c: Config, env: NodeJS.ProcessEnv): Promise<Check[]> {
  const kind = kindOf(c);
  const cmd = kind.program?.(c.agent);
  if (cmd !== undefined && !onPath(cmd, env)) return [row("agent", false, `${cmd} not found or not executable`, "install the agent or fix agent.command")];
  const p = await preflight(c, env);
  const checks: Check[] = [];
  const v = p.version;
  if (v) checks.push(v.state === "older" ? row("agent version", false, v.detail, v.fix) : row("agent version", true, v.detail, "", v.state !== "tested"));
  if (v?.state !== "older") checks.push(p.ok ? row("agent", true, p.detail) : row("agent", false, p.detail, p.fix));
  const over = await kind.planOverride?.(c.agent, { stateDir: c.stateDir, env });
  if (over)
    checks.push(
      row(
        "subscription",
        false,
        `${over.variable} is in the seat's environment beside ${over.plan}: the CLI uses the key over the plan, and every run is billed per token`,
        `remove ${over.variable} from agent.passEnv / agent.env (and the unit's environment) to run on the plan — or log the plan out to make this an API-key seat on purpose`,
      ),
    );
  return checks;
}

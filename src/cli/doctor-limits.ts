// doctor's `limits` check: how this seat's runs would be capped (agent.limits), as the seat's start decides
// it (jail/limits.ts resolveLimits, its probes run): a cgroup or a systemd scope passes; per-process limits
// (rlimit) pass, said as weaker; none fails, and so does a mode or a cap the host cannot honour.
import type { Config } from "../config/schema.js";
import { describeError } from "../errors/index.js";
import { explicitCaps, resolveLimits } from "../jail/limits.js";
import { hostTool } from "../jail/policy.js";
import type { Check } from "./check.js";

const FIX =
  "run the bridge as a systemd service (systemd-run scopes) or give it a cgroup it may divide (a delegated cgroup v2: Delegate=yes; in a container, a private cgroup namespace with its cgroup writable), or run it as root";

export async function limitsCheck(c: Config, env: NodeJS.ProcessEnv): Promise<Check> {
  try {
    const p = await resolveLimits(c.agent.limits, env, { explicit: explicitCaps(c.provenance?.given), prlimit: hostTool("prlimit", env.PATH) });
    if (p.mode === "systemd" || p.mode === "cgroup") return { name: "limits", ok: true, detail: `runs are capped: ${p.why}`, fix: "" };
    if (p.mode === "rlimit") return { name: "limits", ok: true, detail: `rlimit — weaker: ${p.why}. For a cap on the whole run: ${FIX}`, fix: "" };
    return { name: "limits", ok: false, detail: `runs are not capped: ${p.why}`, fix: c.agent.limits.mode === "none" ? "set agent.limits.mode: auto" : FIX };
  } catch (err) {
    return { name: "limits", ok: false, detail: describeError(err), fix: FIX };
  }
}

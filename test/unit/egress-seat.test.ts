// Egress that follows the seat's API (issue 49): a seat with a base URL (a gateway, a loopback server)
// allows and probes that host and the login hosts of its login only; a kind's default public hosts only
// when the seat uses them; a deny of a default host the seat does not need is fine, a deny of one it
// needs fails doctor and run alike, with the reason; the CLI's housekeeping calls are refused as such.
import { describe, expect, it } from "vitest";
import { kindOf, loadConfig } from "../../src/agents/kinds.js";
import { networkCheck } from "../../src/cli/doctor-network.js";
import { egressPlan } from "../../src/egress/plan.js";
import { ConfigError } from "../../src/errors/index.js";

const seat = (agent: Record<string, unknown>) =>
  loadConfig({ env: {}, base: { boards: ["b"], assignee: "seat-1", stateDir: "/tmp/hkb-egress-seat-never-made", agent } });

/** The seat's plan as `run` builds it (daemon/build.ts) from the bridge's environment. */
function planOf(agent: Record<string, unknown>, env: Record<string, string> = {}) {
  const c = seat(agent);
  const plan = egressPlan({
    kind: kindOf(c).egress?.(c.agent, env) ?? { hosts: [] },
    allowHosts: c.agent.isolation.allowHosts,
    denyHosts: c.agent.isolation.denyHosts,
    env: { ...env, ...c.agent.env },
  });
  return { c, plan, hosts: plan.allow.allow.map((r) => `${r.host}:${r.port ?? "443/80"}`) };
}

const KEY = { ANTHROPIC_API_KEY: "sk-ant-test-key-0123456789" };
const claudeApiKey = (base?: string, isolation: Record<string, unknown> = {}) => ({
  kind: "claude-code",
  passEnv: ["ANTHROPIC_API_KEY"],
  ...(base ? { env: { ANTHROPIC_BASE_URL: base } } : {}),
  isolation,
});

describe("a seat's egress follows its API", () => {
  it("claude-api-key with a loopback base URL: that host:port alone, probed there; no default host of the kind", () => {
    const { plan, hosts } = planOf(claudeApiKey("http://127.0.0.1:8765"), KEY);
    expect([...new Set(hosts)]).toEqual(["127.0.0.1:8765"]);
    expect(plan.probe).toBe("127.0.0.1:8765");
    expect(plan.api?.upstream).toBe("http://127.0.0.1:8765");
    expect(plan.allow.decide("api.anthropic.com", 443).allowed).toBe(false);
    expect(plan.allow.decide("claude.ai", 443).allowed).toBe(false);
  });

  it("claude through a gateway: the gateway; a subscription seat (no key) adds its login's hosts; the default API only without a base URL", () => {
    expect([...new Set(planOf(claudeApiKey("https://llm-gw.example.com/anthropic"), KEY).hosts)]).toEqual(["llm-gw.example.com:443"]);
    expect(planOf({ kind: "claude-code" }).hosts).toEqual([
      "api.anthropic.com:443",
      "console.anthropic.com:443/80",
      "platform.claude.com:443/80",
      "claude.ai:443/80",
    ]);
    expect([...new Set(planOf(claudeApiKey(), KEY).hosts)]).toEqual(["api.anthropic.com:443"]);
    expect(planOf(claudeApiKey(), KEY).plan.probe).toBe("api.anthropic.com:443");
  });

  it("codex: an endpoint of its own alone; a key in the environment the API alone; a ChatGPT login its backend and login too; housekeeping refused as such", () => {
    const endpoint = planOf({
      kind: "codex",
      model: "m",
      config: ['model_provider="custom"', 'model_providers.custom={name="custom",base_url="http://127.0.0.1:9911/v1",wire_api="responses"}'],
    });
    expect([...new Set(endpoint.hosts)]).toEqual(["127.0.0.1:9911"]);
    expect(endpoint.plan.probe).toBe("127.0.0.1:9911");
    const key = planOf({ kind: "codex", passEnv: ["OPENAI_API_KEY"] }, { OPENAI_API_KEY: "sk-test-0123456789" });
    expect([...new Set(key.hosts)]).toEqual(["api.openai.com:443"]);
    const chatgpt = planOf({ kind: "codex" });
    expect(chatgpt.hosts).toEqual(["api.openai.com:443", "chatgpt.com:443/80", "auth.openai.com:443/80"]);
    for (const h of ["github.com", "api.github.com", "ab.chatgpt.com"])
      expect(chatgpt.plan.allow.decide(h, 443)).toMatchObject({ allowed: false, refusal: "housekeeping" });
    // the operator's own entry wins over the housekeeping label (git over https from the agent)
    const git = planOf({ kind: "codex", isolation: { allowHosts: ["github.com"] } });
    expect(git.plan.allow.decide("github.com", 443).allowed).toBe(true);
  });
});

describe("denyHosts and the start check give one verdict (doctor and run read the same plan)", () => {
  it("a denied default host the seat does not need is fine for both", () => {
    const agent = claudeApiKey("http://127.0.0.1:8765", { denyHosts: ["api.anthropic.com", "claude.ai"] });
    const { c, plan } = planOf(agent, KEY);
    expect(plan.probe).toBe("127.0.0.1:8765");
    const check = networkCheck(c, KEY, true);
    expect(check.ok, check.detail).toBe(true);
    expect(check.detail).toContain("127.0.0.1:8765");
    expect(check.detail).toContain("denyHosts: api.anthropic.com, claude.ai");
  });

  it("a denied host the seat needs fails both, naming the entry and why", () => {
    const agent = { kind: "codex", passEnv: ["OPENAI_API_KEY"], isolation: { denyHosts: ["chatgpt.com", "api.openai.com"] } };
    const env = { OPENAI_API_KEY: "sk-test-0123456789" };
    let refused: unknown;
    try {
      planOf(agent, env);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    const issues = (refused as ConfigError).issues;
    expect(issues).toEqual([
      expect.objectContaining({
        path: "agent.isolation.denyHosts.1",
        message: expect.stringMatching(/^denies api\.openai\.com:443, which this seat needs \(the agent kind's API/),
      }),
    ]);
    const check = networkCheck(seat(agent), env, true);
    expect(check.ok).toBe(false);
    expect(check.detail).toContain("agent.isolation.denyHosts.1: denies api.openai.com:443, which this seat needs");
    expect(check.fix).toMatch(/remove that entry from agent\.isolation\.denyHosts/);
    // without the proxy (no jail, network: host) the lists are no network of the seat's: nothing is refused for them
    const c = seat(agent);
    const kind = kindOf(c).egress?.(c.agent, env) ?? { hosts: [] };
    expect(() => egressPlan({ kind, allowHosts: [], denyHosts: ["api.openai.com"], env, enforced: false })).not.toThrow();
  });
});

// A Codex seat's custom provider read from its `agent.config` overrides, and what the jail's proxy masks
// for it: the provider's own key variable (env_key) holds a placeholder in the jail like OPENAI_API_KEY.
import { describe, expect, it } from "vitest";
import { customProviderOf } from "../../src/agents/codex/provider.js";
import { AGENT_KINDS } from "../../src/agents/kinds.js";

describe("a Codex seat's custom provider", () => {
  it("reads base_url and env_key, inline or as keys of their own; a key name that is no variable is ignored", () => {
    expect(customProviderOf(['model_provider="x"', 'model_providers.x={name="x",base_url="http://h:1/v1",env_key="LLM_KEY"}'])).toEqual({
      name: "x",
      baseUrl: "http://h:1/v1",
      envKey: "LLM_KEY",
    });
    expect(customProviderOf(["model_provider=y", 'model_providers.y.base_url="https://y/v1"', 'model_providers.y.env_key="Y_KEY"'])).toEqual({
      name: "y",
      baseUrl: "https://y/v1",
      envKey: "Y_KEY",
    });
    expect(customProviderOf(['model_provider="z"', 'model_providers.z.env_key="$(id)"'])?.envKey).toBeNull();
    expect(customProviderOf(['model="gpt"'])).toBeNull();
  });

  it("the provider's key is forwarded by the proxy, never the jail's", () => {
    const codex = AGENT_KINDS.find((k) => k.kind === "codex");
    const config = ['model_provider="x"', 'model_providers.x={name="x",base_url="http://127.0.0.1:9/v1",env_key="LLM_KEY"}'];
    const agent = { config, passEnv: ["LLM_KEY"], env: {} } as unknown as Parameters<NonNullable<NonNullable<typeof codex>["egress"]>>[0];
    const e = codex?.egress?.(agent, { LLM_KEY: "sk-real" });
    expect(e?.api).toEqual({ name: "openai", upstream: "http://127.0.0.1:9/v1", keyEnvs: ["LLM_KEY"] });
  });
});

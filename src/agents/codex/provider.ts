// A Codex seat's custom model provider, as its `agent.config` overrides name it (`-c model_provider="x"`,
// `-c model_providers.x={… base_url="…" …}` or `-c model_providers.x.base_url="…"`).

/** The custom provider a seat's `agent.config` names (`model_provider="x"`), its base_url and env_key, where it sets them. */
export function customProviderOf(config: readonly string[]): { name: string; baseUrl: string | null; envKey: string | null } | null {
  const name = config
    .map((kv) => /^model_provider\s*=\s*"?([A-Za-z0-9_-]+)"?\s*$/.exec(kv)?.[1])
    .filter((n): n is string => n !== undefined)
    .at(-1);
  if (!name) return null;
  const esc = name.replace(/[-]/g, "\\-");
  const field = (kv: string, key: string) =>
    new RegExp(`^model_providers\\.${esc}\\.${key}\\s*=\\s*"([^"]+)"`).exec(kv)?.[1] ??
    new RegExp(`^model_providers\\.${esc}\\s*=\\s*\\{.*\\b${key}\\s*=\\s*"([^"]+)"`).exec(kv)?.[1];
  let baseUrl: string | null = null;
  let envKey: string | null = null;
  for (const kv of config) {
    baseUrl = field(kv, "base_url") ?? baseUrl;
    envKey = field(kv, "env_key") ?? envKey;
  }
  return { name, baseUrl, envKey: envKey && /^[A-Za-z_][A-Za-z0-9_]*$/.test(envKey) ? envKey : null };
}

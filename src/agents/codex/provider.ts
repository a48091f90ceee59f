// A Codex seat's custom model provider, as its `agent.config` overrides name it (`-c model_provider="x"`,
// `-c model_providers.x={… base_url="…" …}` or `-c model_providers.x.base_url="…"`).

/** The custom provider a seat's `agent.config` names (`model_provider="x"`) and its base_url, if it sets one. */
export function customProviderOf(config: readonly string[]): { name: string; baseUrl: string | null } | null {
  const name = config
    .map((kv) => /^model_provider\s*=\s*"?([A-Za-z0-9_-]+)"?\s*$/.exec(kv)?.[1])
    .filter((n): n is string => n !== undefined)
    .at(-1);
  if (!name) return null;
  const esc = name.replace(/[-]/g, "\\-");
  let baseUrl: string | null = null;
  for (const kv of config) {
    const own = new RegExp(`^model_providers\\.${esc}\\.base_url\\s*=\\s*"([^"]+)"`).exec(kv)?.[1];
    const inline = new RegExp(`^model_providers\\.${esc}\\s*=\\s*\\{.*\\bbase_url\\s*=\\s*"([^"]+)"`).exec(kv)?.[1];
    baseUrl = own ?? inline ?? baseUrl;
  }
  return { name, baseUrl };
}

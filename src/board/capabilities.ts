// Capabilities, not versions: read `hermes --version` and the `--help` of the verbs whose options
// differ between Hermes releases, once, and turn them into what the bridge may rely on.
import { classify } from "./classify.js";
import type { HermesCli } from "./cli.js";
import type { BlockKind, Capabilities } from "./port.js";

const KINDS: readonly BlockKind[] = ["needs_input", "capability", "transient", "dependency"];

/** "Hermes Agent v0.20.0 (2026.8.3)" → "0.20.0". */
export function parseVersion(text: string): string | null {
  return /v?(\d+\.\d+\.\d+)/.exec(text)?.[1] ?? null;
}

const newer = (v: string | null, than: [number, number, number]) => {
  if (!v) return false;
  const p = v.split(".").map(Number);
  for (let i = 0; i < 3; i += 1) if ((p[i] ?? 0) !== than[i]) return (p[i] ?? 0) > (than[i] ?? 0);
  return false;
};

/** Pure: the help texts → capabilities. */
export function capabilitiesFrom(h: { version: string; kanban: string; block: string; heartbeat: string }): Capabilities {
  const version = parseVersion(h.version);
  const kinds =
    /--kind \{([^}]*)\}/
      .exec(h.block)?.[1]
      ?.split(",")
      .map((k) => k.trim()) ?? [];
  return {
    version,
    blockKinds: KINDS.filter((k) => kinds.includes(k)),
    attach: /\battach\b/.test(h.kanban),
    heartbeatExtends: /--ttl\b|--extend\b/.test(h.heartbeat),
    // Upstream after 0.20.0 (PR #111446) counts every automatic reclaim as a failure; --help does not say.
    reclaimCountsAsFailure: newer(version, [0, 20, 0]),
  };
}

export async function detectCapabilities(cli: HermesCli, signal?: AbortSignal): Promise<Capabilities> {
  const help = async (verb: string | null) => {
    const r = await cli.raw(verb ? ["kanban", `--board=${cli.slug}`, verb, "--help"] : ["kanban", "--help"], signal);
    const err = classify(r, { verb: `${verb ?? "kanban"} --help`, board: cli.slug });
    if (err) throw err;
    return r.stdout;
  };
  const [version, kanban, block, heartbeat] = await Promise.all([
    cli.raw(["--version"], signal).then((r) => r.stdout),
    help(null),
    help("block"),
    help("heartbeat"),
  ]);
  return capabilitiesFrom({ version, kanban, block, heartbeat });
}

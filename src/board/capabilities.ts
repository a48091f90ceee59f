// Capabilities, not versions: read `hermes --version` and the `--help` of the verbs whose options
// differ between Hermes releases, once, and turn them into what the bridge may rely on.
import { classify } from "./classify.js";
import type { HermesCli } from "./cli.js";
import type { BlockKind, Capabilities } from "./port.js";

const KINDS: readonly BlockKind[] = ["needs_input", "capability", "transient", "dependency"];

/** "Hermes Agent v0.20.0 (2026.8.3)" → "0.20.0" (shown by doctor; never used to decide anything). */
export function parseVersion(text: string): string | null {
  return /v?(\d+\.\d+\.\d+)/.exec(text)?.[1] ?? null;
}

/** The `--help` texts the capabilities are read from. */
export interface HelpTexts {
  version: string;
  kanban: string;
  block: string;
  heartbeat: string;
  claim: string;
  complete: string;
  comment: string;
  dispatch: string;
  /** `request-review --help`, or "" where the CLI has no such verb. */
  requestReview?: string;
}

/** The verbs whose `--help` is read (besides `kanban --help` and `--version`). */
export const HELP_VERBS = ["block", "heartbeat", "claim", "complete", "comment", "dispatch"] as const;

const has = (help: string, flag: string) => new RegExp(`(^|[\\s\\[])${flag}\\b`).test(help);

/** One option's help paragraph (its line and the deeper-indented lines under it). */
function optionHelp(help: string, flag: string): string {
  const lines = help.split("\n");
  const at = lines.findIndex((l) => /^\s+-/.test(l) && has(l, flag));
  if (at < 0) return "";
  const out = [lines[at] ?? ""];
  for (const l of lines.slice(at + 1)) {
    if (!/^\s{6,}\S/.test(l) || /^\s+-/.test(l)) break;
    out.push(l);
  }
  return out.join("\n");
}

/** Pure: the help texts → capabilities (never from the version string). */
export function capabilitiesFrom(h: HelpTexts): Capabilities {
  const kinds =
    /--kind \{([^}]*)\}/
      .exec(h.block)?.[1]
      ?.split(",")
      .map((k) => k.trim()) ?? [];
  const namedClaims = has(h.claim, "--claimer");
  return {
    version: parseVersion(h.version),
    blockKinds: KINDS.filter((k) => kinds.includes(k)),
    attach: /\battach\b/.test(h.kanban),
    // Upstream renews only a named claim (`heartbeat --claimer X --ttl N`); `--extend` was a proposal's spelling.
    heartbeatExtends: has(h.heartbeat, "--extend") || (has(h.heartbeat, "--ttl") && (!namedClaims || has(h.heartbeat, "--claimer"))),
    // #111446: the failure breaker counts reclaims — the dispatcher's --failure-limit help names them.
    reclaimCountsAsFailure: /reclaim/i.test(optionHelp(h.dispatch, "--failure-limit")),
    namedClaims,
    expectedStatus: (["complete", "block", "comment"] as const).filter((v) => has(h[v], "--expected-status")),
    review: /\brequest-review\b/.test(h.kanban) && has(h.requestReview ?? "", "--summary"),
    reviewMetadata: has(h.requestReview ?? "", "--metadata"),
    authorizeExistingPr: /\bauthorize-existing-pr\b/.test(h.kanban),
  };
}

export async function detectCapabilities(cli: HermesCli, signal?: AbortSignal): Promise<Capabilities> {
  const help = async (verb: string | null) => {
    const r = await cli.raw(verb ? ["kanban", `--board=${cli.slug}`, verb, "--help"] : ["kanban", "--help"], signal);
    const err = classify(r, { verb: `${verb ?? "kanban"} --help`, board: cli.slug });
    if (err) throw err;
    return r.stdout;
  };
  const [version, kanban, ...verbs] = await Promise.all([cli.raw(["--version"], signal).then((r) => r.stdout), help(null), ...HELP_VERBS.map(help)]);
  const texts = Object.fromEntries(HELP_VERBS.map((v, i) => [v, verbs[i] ?? ""])) as Record<(typeof HELP_VERBS)[number], string>;
  // A verb not every release has: read only where `kanban --help` lists it.
  const requestReview = /\brequest-review\b/.test(kanban ?? "") ? await help("request-review") : "";
  return capabilitiesFrom({ version, kanban, ...texts, requestReview });
}

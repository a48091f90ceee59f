// The config's single source of truth (zod). Every object is strict: an unknown key is an error (with
// a did-you-mean, see load.ts). The agent's part is each kind's own (agents/<kind>/kind.ts): the
// schema is put together from the list of kinds (configSchemaFor). Defaults here are the documented defaults; values that depend on the
// TTL (claim.safetySeconds, heartbeat.intervalSeconds, agent.wrapUpSeconds) are left unset unless the
// user set them and are derived per claim (timing.ts).
import { homedir, hostname } from "node:os";
import type { Protocol, Provenance } from "./meta.js";
import { basename, join } from "node:path";
import { z } from "zod";
import { Seat } from "./seat.js";

import { type AgentConfig, AgentBaseSchema, argv, envName, list, seconds, serviceLevels, slug } from "./fields.js";

export type { AgentConfig } from "./fields.js";

/** Where an agent works (workspace/port.ts): the one list of modes; `auto` picks one per task. */
export const WORKSPACE_MODES = ["board", "mapped", "checkout"] as const;
export type WorkspaceMode = (typeof WORKSPACE_MODES)[number];
const workspaceMode = z.enum(["auto", ...WORKSPACE_MODES]);

const Workspace = z.strictObject({
  /** board | mapped | checkout, or auto (board when the claimed path exists here, else mapped / checkout). A map per board slug is accepted. */
  mode: z.union([workspaceMode, z.record(slug, workspaceMode)]).default("auto"),
  /** Directories (board paths) a task's workspace may be in, besides Hermes's own workspaces roots. */
  allowedRoots: list(z.string().min(1)).default([]),
  /** Board path prefix → local path where the board's files are mounted (longest prefix wins). */
  pathMap: z.record(z.string().min(1), z.string().min(1)).default({}),
  /** Local working copies for checkout mode; default <stateDir>/checkouts. */
  localRoot: z.string().optional(),
  /** Git repository per board slug or Hermes project id, for checkout mode. */
  repos: z.record(z.string().min(1), z.string().min(1)).default({}),
  /** Commit and push the task branch at every close (checkout mode). */
  push: z.boolean().default(true),
  /** Checkout mode pushes only to branches with this prefix (or named in pushBranches); a task's other branch is the base. */
  branchPrefix: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*\/$/, "a branch prefix ending in '/' (e.g. hermes/)")
    .default("hermes/"),
  /** Further branches checkout mode may push to (exact names). */
  pushBranches: list(z.string().min(1)).default([]),
  /** The bridge's own git (checkout mode, the gate): nothing of a work tree's config runs; what it may use is named here. */
  git: z
    .strictObject({
      /** core.sshCommand for fetch/push (default: ssh). */
      sshCommand: z.string().min(1).optional(),
      /** Hooks the operator wants to run on the bridge's commits (default: none). */
      hooksPath: z.string().min(1).optional(),
      /** A credential helper for fetch/push (default: none). */
      credentialHelper: z.string().min(1).optional(),
      /** Variables git may see for its credentials (default: none beyond PATH, HOME, locale, SSH_AUTH_SOCK). */
      passEnv: list(envName).default([]),
    })
    .prefault({}),
  /** How a deliverable reaches the board host when the CLI runs elsewhere: argv with {file}, {name}, {dir}, {task}. */
  uploadCommand: argv.optional(),
  /** The directory on the board host {dir} stands for (default: /tmp/hermes-bridge-uploads/<task>). */
  uploadDir: z.string().optional(),
});

const Claim = z.strictObject({
  ttlSeconds: z.number().int().min(1).default(900),
  /** Default min(60, ttl/4) of the TTL used for the claim. */
  safetySeconds: z.number().min(0).optional(),
  /** Upper bound for a per-task TTL (a task's max runtime + safety). */
  maxTtlSeconds: z
    .number()
    .int()
    .min(1)
    .default(4 * 3600),
});

const Gate = z.strictObject({
  /** Verification commands run in the workspace after the agent asks to complete. */
  commands: list(z.string().min(1)).default([]),
  /** Also run the task body's `## Verification` block (task text is untrusted: off by default). */
  bodyVerification: z.boolean().default(false),
  /** With bodyVerification: only body commands matching one of these run (a prefix, or /regex/). */
  allowedCommands: list(z.string().min(1)).default([]),
  timeoutSeconds: seconds.default(600),
  outputTailChars: z.number().int().min(200).default(4000),
  requireChanges: z.boolean().default(false),
  allowDirty: z.boolean().default(false),
  minItems: z.number().int().min(0).default(0),
});

const Hermes = z.strictObject({
  command: argv.default(["hermes"]),
  /** Sets HERMES_HOME for the CLI. */
  home: z.string().optional(),
  env: z.record(envName, z.string()).default({}),
  passEnv: list(envName).default([]),
  callTimeoutSeconds: seconds.default(150),
  /** One warm server for every `kanban` call (no Python start per call): auto = for a Python launcher that passes the handshake. */
  callServer: z.enum(["auto", "on", "off"]).default("auto"),
  /** host: the seats of this host on the same board, command and environment share one call server and one watch (a hub); seat: each its own. */
  share: z.enum(["seat", "host"]).default("seat"),
  /** The hubs' sockets (share: host): a directory of the bridge user's own, 0700 (default: $XDG_RUNTIME_DIR/hermes-bridge-hubs, else $XDG_CACHE_HOME or ~/.cache, /hermes-bridge/hubs). */
  shareDir: z.string().min(1).optional(),
  textCapBytes: z
    .number()
    .int()
    .min(1024)
    .max(100_000)
    .default(64 * 1024),
  retry: z
    .strictObject({
      retries: z.number().int().min(0).max(20).default(4),
      minDelayMs: z.number().int().min(0).default(500),
      maxDelayMs: z.number().int().min(0).default(8000),
      deadlineSeconds: seconds.default(300),
    })
    .prefault({}),
});

export const baseShape = {
  boards: z.preprocess((v) => (typeof v === "string" ? [v] : v), z.array(slug).min(1, "name at least one board")),
  assignee: z
    .string()
    .min(1)
    .transform((s) => s.toLowerCase()),
  /** Author of comments and of the CLI's BLOCKED: comments; defaults to the assignee. */
  author: z.string().min(1).optional(),
  /** Hermes profile names that must never be used as the bridge's assignee. */
  reservedAssignees: list(z.string()).default([]),
  hermes: Hermes.prefault({}),
  claim: Claim.prefault({}),
  heartbeat: z.strictObject({ intervalSeconds: seconds.optional() }).prefault({}),
  /**
   * How a successful run ends: `review: when-asked` — a review hand-off (`request-review`) when the agent
   * asks for one, else `complete`; `always` — every success is handed over for review; `never` — always
   * `complete`. `reviewer`: the profile a hand-off goes to when the agent names none. `maxReviewRounds`:
   * review round trips (handed to review, sent back) a task may make before it is blocked for a person.
   */
  close: z
    .strictObject({
      review: z.enum(["never", "when-asked", "always"]).default("when-asked"),
      reviewer: z
        .string()
        .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "a Hermes profile name")
        .optional(),
      maxReviewRounds: z.number().int().min(1).default(3),
    })
    .prefault({}),
  discovery: z
    .strictObject({
      sweepSeconds: seconds.default(60),
      watch: z.boolean().default(true),
      debounceMs: z.number().int().min(0).default(200),
      watchRestartMaxSeconds: seconds.default(30),
    })
    .prefault({}),
  concurrency: z.number().int().min(1).max(64).default(1),
  gate: Gate.prefault({}),
  workspace: Workspace.prefault({}),
  seat: Seat.prefault({}),
  stateDir: z.string().optional(),
  /** Comments on a running task reach its agent as notes (the board's authors are names any writer chooses). */
  steering: z
    .strictObject({
      /** Only these authors' comments are handed to a running agent (default: every author but this seat, as Hermes's own workers read every comment). */
      authors: list(z.string().min(1)).default([]),
      /** Notes handed to one run at most; later comments reach the next run's continuation prompt. */
      maxNotesPerRun: z.number().int().min(0).max(1000).default(20),
    })
    .prefault({}),
  webhook: z
    .strictObject({
      url: z.url({ protocol: /^https?$/, error: "an http(s) URL" }).optional(),
      /** Name of the env var that holds the HMAC secret (never the secret itself). */
      secretEnv: envName.optional(),
      timeoutSeconds: seconds.default(10),
      retries: z.number().int().min(0).max(10).default(3),
      /** Alerts waiting for delivery at most (the oldest are dropped to the dead-letter log past it). */
      queueSize: z.number().int().min(1).default(1000),
    })
    .prefault({}),
  secrets: z
    .strictObject({
      /** Env var names whose literal values are redacted from everything posted to the board. */
      env: list(envName).default([]),
      /** Also redact the values of secret-looking variables of the bridge's environment (*_KEY, *_TOKEN, …). */
      fromEnvironment: z.boolean().default(true),
    })
    .prefault({}),
  log: z
    .strictObject({
      level: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
      format: z.enum(["auto", "json", "pretty"]).default("auto"),
    })
    .prefault({}),
  shutdown: z
    .strictObject({
      graceSeconds: z.number().min(0).default(30),
      /**
       * What a stop does to a run still working after the grace period: `continue` — the agent is stopped
       * politely (its session saved), the claim kept, and this seat continues the task in the same run when it
       * is back (or Hermes hands it back to the lane at the claim's end); `handback` — it goes back to the lane now.
       */
      inFlight: z.enum(["continue", "handback"]).default("continue"),
    })
    .prefault({}),
  serviceLevels,
  /** The fleet view (`hermes-bridge fleet`, the HTTP server's `/`): local seats' state dirs under `root` (default: the parent of stateDir) and remote seats' /status URLs. */
  fleet: z
    .strictObject({
      root: z.string().optional(),
      urls: list(z.url({ protocol: /^https?$/, error: "an http(s) URL of a seat's status endpoint" })).default([]),
    })
    .prefault({}),
  /** Loopback observability server (/, /healthz, /metrics, /status); off unless a port is set. */
  http: z
    .strictObject({
      port: z.number().int().min(0).max(65535).optional(),
      host: z.string().default("127.0.0.1"),
      /** Host names (no port) requests may name besides loopback, this machine's name and the bind address (DNS rebinding). */
      allowedHosts: list(z.string().min(1)).default([]),
      /** Env var that holds the token /, /status and /metrics require (required when host is not loopback). */
      tokenEnv: envName.optional(),
      /** Or a file that holds it. */
      tokenFile: z.string().min(1).optional(),
    })
    .prefault({}),
};

/**
 * Where seats keep their state dirs by default (one dir per seat): the fleet view's default root. A bridge
 * running as root keeps them where the service does — /var/lib/hermes-bridge, the systemd unit's
 * StateDirectory= and the image's volume, so `init` as root, the unit, the image and `fleet` name one place
 * (its agents run as another uid, which must pass the path down to a run's dir — never through /root); any
 * other user under its HOME.
 */
export const defaultStateRoot = (uid = process.getuid?.()) =>
  uid === 0 ? join("/var", "lib", "hermes-bridge") : join(homedir(), ".local", "state", "hermes-kanban-bridge");

function finish<
  T extends { assignee: string; author?: string | undefined; stateDir?: string | undefined; reservedAssignees: string[]; seat: { name?: string | undefined } },
>(c: T) {
  const stateDir = c.stateDir ?? join(defaultStateRoot(), c.assignee);
  return { ...c, author: c.author ?? c.assignee, stateDir, seat: { ...c.seat, name: c.seat.name ?? `${hostname()}/${basename(stateDir)}` } };
}

function reservedCheck(c: { assignee: string; reservedAssignees: string[] }, ctx: z.RefinementCtx): void {
  const reserved = new Set(["default", ...c.reservedAssignees.map((s) => s.toLowerCase())]);
  if (reserved.has(c.assignee))
    ctx.addIssue({
      code: "custom",
      path: ["assignee"],
      message: `'${c.assignee}' is a Hermes profile name: the gateway would spawn a Hermes worker for these tasks; choose a lane name that is not a profile`,
    });
}

/**
 * What the board-wide and seat commands need (`usage`, `fleet`, `outbox`, `status`): everything but the
 * agent; the assignee only where a seat is meant (`outbox`/`status` ask for it when they need it), the
 * boards only where the board is read (`usage`).
 */
export const OpsConfigSchema = z
  .strictObject({ ...baseShape, boards: baseShape.boards.optional(), assignee: baseShape.assignee.optional(), agent: z.unknown().optional() })
  .superRefine((c, ctx) => {
    if (c.assignee !== undefined) reservedCheck({ ...c, assignee: c.assignee }, ctx);
  })
  .transform((c) => {
    const stateDir = c.stateDir ?? (c.assignee !== undefined ? join(defaultStateRoot(), c.assignee) : undefined);
    return {
      ...c,
      /** Empty when none is named: `status`, `outbox` and `fleet` read the state dir only; `usage` asks for one. */
      boards: c.boards ?? [],
      author: c.author ?? c.assignee ?? "hermes-bridge",
      stateDir: stateDir ?? defaultStateRoot(),
      /** False when neither an assignee nor a state dir names a seat (a board-wide command). */
      seatNamed: stateDir !== undefined,
      seat: { ...c.seat, name: c.seat.name ?? `${hostname()}/${basename(stateDir ?? "board")}` },
    };
  });

function withAgent(agent: z.ZodType<AgentConfig>) {
  return z
    .strictObject({ ...baseShape, agent })
    .superRefine(reservedCheck)
    .transform(finish);
}

/** The shape every config has (the agent as the rest of the bridge sees it). */
export const ConfigSchema = withAgent(AgentBaseSchema);

/** The config schema with each kind's own strict agent part (`kind` picks one). */
export function configSchemaFor(kinds: readonly z.ZodObject[]): typeof ConfigSchema {
  const [first, ...rest] = kinds;
  if (!first) throw new Error("no agent kinds");
  const agent = rest.length === 0 ? first : z.discriminatedUnion("kind", [first, ...rest] as unknown as [z.ZodObject, z.ZodObject]);
  return withAgent(agent as unknown as z.ZodType<AgentConfig>);
}

/** Where a value came from (doctor prints it; conflicts name it). */
export type Config = z.output<typeof ConfigSchema> & { provenance?: Provenance; protocol?: Protocol };
export type { Protocol, Provenance } from "./meta.js";
/** The success gate's section (gate/gate.ts reads it; nothing below the seat reads the whole config). */
export type GateConfig = Config["gate"];
/** A seat's Config is an OpsConfig too (its seat is always named). */
export type OpsConfig = Omit<z.output<typeof OpsConfigSchema>, "seatNamed"> & { seatNamed?: boolean; provenance?: Provenance };

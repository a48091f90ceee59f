// The zod building blocks every part of the config shares — the base schema and each agent kind's own
// part (agents/<kind>/kind.ts) — so that a value is read the same way wherever it appears.
import { z } from "zod";
import { splitCommand } from "./command.js";

export const slug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "a board slug: 1-64 chars, lowercase letters, digits, '-' or '_', not starting with '-' or '_'");
/** An argv; YAML may also give it as one string, split like a shell would ("python3 /opt/hermes/hermes"). */
export const argv = z.preprocess((v) => (typeof v === "string" ? splitCommand(v) : v), z.array(z.string().min(1)).min(1, "at least the program name"));
/** A list; YAML may also give one scalar (`boards: b1`). */
export const list = <T extends z.ZodType>(item: T) => z.preprocess((v) => (typeof v === "string" ? [v] : v), z.array(item));
export const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name");
export const seconds = z.number().positive();

/** A spend limit: tokens (input + output) and/or cost in USD; crossing either counts. */
const budgetLimits = z.strictObject({ tokens: z.number().int().positive().optional(), costUsd: z.number().positive().optional() });

/** What one run may do with the task tools (tools/budget.ts: the defaults there); past it a tool answers an error naming the key. */
const toolBudget = z
  .strictObject({
    /** Comments one run may post. */
    comments: z.number().int().min(0).default(25),
    /** Bytes of one run's comments together. */
    commentBytes: z.number().int().min(0).default(100_000),
    /** Heartbeats through the tool in any minute (the seat's own heartbeats are not counted). */
    heartbeatsPerMinute: z.number().int().min(1).default(6),
    /** Files one run may attach at its close (its deliverables). */
    attachments: z.number().int().min(0).default(20),
  })
  .prefault({});

/**
 * Where the agent runs: `bwrap` — in a bubblewrap jail of its own (refused at start without a working
 * bubblewrap); `auto` — the jail when a probe at start works, else (said loudly) `user` where the bridge
 * runs as root and `none` where it does not; `user` — as an unprivileged uid without a jail (engines that
 * cannot relax /proc); `none` — unconfined. A string is the mode.
 */
export const isolation = z.preprocess(
  (v) => (typeof v === "string" ? { mode: v } : v),
  z
    .strictObject({
      mode: z.enum(["auto", "bwrap", "user", "none"]).default("auto"),
      /**
       * Who the agent is on the host when the bridge runs as root (never root): a user name, uid or uid:gid;
       * `auto` — the host's `hermes-agent` user, else nobody. A bridge that is not root runs agents as itself.
       */
      user: z.string().min(1).default("auto"),
      /**
       * proxy: the jail's own network namespace, and out of it only through the seat's proxy — the agent kind's
       * API and login hosts and `allowHosts`, never the host's loopback or private ranges (unless an entry
       * names that host:port); host: the host's network as it is; none: no network at all.
       */
      network: z.enum(["proxy", "host", "none"]).default("proxy"),
      /** Where a jailed agent may connect besides its API (network: proxy): host, *.domain, IP, each with an optional :port. */
      allowHosts: list(z.string().min(1)).default([]),
      /** Never, whatever allows it (a deny wins). */
      denyHosts: list(z.string().min(1)).default([]),
      /** Extra paths the agent may read (toolchains, caches), at their real paths. */
      readOnly: list(z.string().min(1)).default([]),
      /** Extra paths the agent may write (a shared build cache). */
      readWrite: list(z.string().min(1)).default([]),
      /**
       * A bridge that is not root runs its agent as its own user, who owns the workspace's files that also have
       * a name outside it (a local clone's objects, a package store's files): copy — each gets a private copy
       * before the agent starts (up to sharedCopyMaxMiB; more: the task is blocked, naming the ways out); keep —
       * left as they are, and the card says the agent could rewrite them. A root bridge keeps them read-only.
       */
      sharedFiles: z.enum(["copy", "keep"]).default("copy"),
      sharedCopyMaxMiB: z.number().int().positive().default(1024),
      /**
       * The jail's first process, which holds the lifeline and carries the jail's network (jail/relay.ts): auto —
       * in the host's /usr/bin/python3 where it is (a fifth of a Node start per run), else in the bridge's Node; node — always Node.
       */
      relay: z.enum(["auto", "node"]).default("auto"),
      /** The bubblewrap program. */
      bwrap: z.string().min(1).default("bwrap"),
      /**
       * Where the execute-only copies of the agent CLIs' images are kept (the CLI runs from them in the jail, so
       * no other process there can read or write its memory); one per bridge user, shared by its seats. Default:
       * /var/cache/hermes-bridge/images as root, else $XDG_CACHE_HOME (~/.cache)/hermes-bridge/images.
       */
      imageCache: z.string().min(1).optional(),
    })
    .prefault({}),
);

/**
 * Per-run caps: memory (swap included), processes and the jail's /tmp. `auto` — systemd-run scopes where a
 * service manager runs the bridge, else a cgroup of the run's own (v2 delegated, or v1's memory and pids),
 * else per-process limits (prlimit: weaker, said everywhere), else uncapped and said loudly — or, with caps
 * the operator set, the seat does not start; `systemd`, `cgroup`, `rlimit` — that one or the seat does not start; `none`.
 */
export const limits = z
  .strictObject({
    mode: z.enum(["auto", "systemd", "cgroup", "rlimit", "none"]).default("auto"),
    memoryMiB: z.number().int().min(64).default(8192),
    pids: z.number().int().min(16).default(4096),
    tmpMiB: z.number().int().min(16).default(2048),
  })
  .prefault({});

/** The keys every agent kind has (timing, environment, output caps, continuity). */
export const agentCommon = {
  isolation,
  limits,
  /** Extra variables set for the agent (values are literal). */
  env: z.record(envName, z.string()).default({}),
  /** Variable names passed through from the bridge's environment (allow-list). */
  passEnv: list(envName).default([]),
  /** Max characters of stdout/stderr kept in memory (the tail). */
  outputCapBytes: z
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  killGraceSeconds: seconds.default(10),
  /** No agent event for this long → the run is stopped as stalled. 0 = off. */
  stallSeconds: z.number().min(0).default(600),
  /**
   * The agent reports it cannot reach its API (Codex's reconnect loop, Claude's connection retries, the local
   * loop's refused connection) for this long with no answer in between → the run is stopped, the task handed
   * back to the lane and the seat paused until its own check gets through. 0 = off.
   */
  unreachableSeconds: z.number().min(0).default(180),
  /**
   * An attempt that ended the environment's way — the agent's process crashed or was killed by the host, its
   * API failed or was overloaded mid-turn, its connection broke mid-turn — is started again within the claim
   * (its session resumed where it has one) this many times, after retryBackoffSeconds × 2^(n−1) (at most
   * retryBackoffMaxSeconds), each a heartbeat note; only then the templated block, naming the attempts. The
   * task's own ends (the gate, the agent's block, a refusal) are never retried. 0 = off.
   */
  retries: z.number().int().min(0).max(10).default(2),
  retryBackoffSeconds: z.number().min(0).default(15),
  retryBackoffMaxSeconds: z.number().min(0).default(300),
  /** A CLI that printed its final result and does not exit within this is stopped; the result counts. */
  afterResultSeconds: seconds.default(15),
  /** Polite stop this long before the deadline (default min(60, ttl/8)). */
  wrapUpSeconds: seconds.optional(),
  /** Continue a cut run's session on the next claim of the same task. */
  resume: z.boolean().default(true),
  /** Runs of one task that may resume its session; then the task is blocked for a human decision. */
  resumeBudget: z.number().int().min(1).default(5),
  /**
   * Budgets: `task` — summed over the task's runs as its cards record them; `seatDaily` — this seat's
   * spend since midnight UTC. A run that crosses one is stopped politely and the task blocked naming the
   * spend; a seat over its daily budget claims nothing until the next day. Tokens count the larger of the
   * agent's report and its proxy's count of the API. `tools` — per run: the task tools' comments, their
   * bytes, heartbeats a minute, attachments.
   */
  budget: z.strictObject({ task: budgetLimits.optional(), seatDaily: budgetLimits.optional(), tools: toolBudget }).prefault({}),
  /**
   * Where a task's skills (`create --skill S`) are looked up first (each searched for `<name>/SKILL.md`),
   * before the board's Hermes home (`$HERMES_HOME/skills`) and the skills bundled with its install.
   */
  skillDirs: list(z.string().min(1)).default([]),
  /** Prompt template file; defaults to the bundled prompt for the agent kind. */
  promptFile: z.string().optional(),
  /** Cap of the rendered prompt (stdin, never argv), with a visible marker past it. */
  promptMaxBytes: z
    .number()
    .int()
    .min(4096)
    .default(1024 * 1024),
};

/** What the rest of the bridge knows of any agent's config: its kind and the common keys (the kind reads the rest). */
export const AgentBaseSchema = z.looseObject({ kind: z.string(), ...agentCommon });
export type AgentConfig = z.output<typeof AgentBaseSchema>;

/**
 * The seed's service levels (seeds/001): a failure rate ((blocked + lost + dead letters) ÷ closed) at or
 * above `failureRate`, a dead-letter rate at or above `deadLetterRate`, a p95 run time above
 * `runTimeP95Seconds` — each judged from `minRuns` closed runs — are flagged by `stats` and the fleet page,
 * and alerted on by the Prometheus rules (the seat exports them: hkb_service_level_*).
 */
export const serviceLevels = z
  .strictObject({
    failureRate: z.number().min(0).max(1).default(0.05),
    deadLetterRate: z.number().min(0).max(1).default(0.01),
    runTimeP95Seconds: z.number().min(1).default(600),
    minRuns: z.number().int().min(1).default(10),
  })
  .prefault({});

// What an agent kind declares about itself — everything that differs per kind lives with the kind
// (agents/<kind>/kind.ts) and the rest of the bridge iterates over the list (kinds.ts), never switching
// on a kind's name: its config part, how it is created and checked before a seat claims anything, its
// per-seat home, its polite stop signal, its default prompt file and what `doctor` checks of it.
import type { z } from "zod";
import type { AgentConfig } from "../config/fields.js";
import type { Redactor } from "../result/redact.js";
import type { Clock } from "../time/clock.js";
import type { CliHomeLayout } from "./cli-home.js";
import type { Claim, ClaimCheck } from "./probe.js";
import type { KindEgress } from "../egress/plan.js";
import type { AgentAdapter } from "./port.js";
import type { TestedRange, VersionVerdict } from "./tested.js";

export interface PreflightResult {
  ok: boolean;
  detail: string;
  fix: string;
  /** The installed CLI's version against the tested range (kinds that declare `version`). */
  version?: VersionVerdict;
}

/** One way to log a seat in: the command an operator pastes (its per-seat home made first where the CLI needs it). */
export interface LoginStep {
  /** subscription · token · chatgpt · device · api-key */
  id: string;
  /** What it is for, in words ("a Claude subscription: a browser sign-in"). */
  what: string;
  /** The shell line, exactly as it works (quoted). */
  command: string;
  /** What to do after it, if anything ("then CLAUDE_CODE_OAUTH_TOKEN in the seat's environment …"). */
  after?: string;
}

export interface KindContext {
  /** The seat's state dir (its logins, its private scratch). */
  stateDir: string;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  redactor: Redactor;
  /** The kind's own polite stop (its `stopSignal`), handed to the adapter it creates. */
  stopSignal: NodeJS.Signals;
}

export interface AgentKind<C extends AgentConfig = AgentConfig> {
  readonly kind: string;
  /** The kind's strict config part (`kind` literal, the common keys and its own). */
  readonly schema: z.ZodObject;
  /** The polite stop (the session is kept): SIGINT for the CLIs, SIGTERM for a command. */
  readonly stopSignal: NodeJS.Signals;
  create(a: C, ctx: KindContext): Promise<AgentAdapter>;
  /** Logged in / reachable? A failure pauses the seat before anything is claimed. */
  preflight(a: C, ctx: Omit<KindContext, "clock" | "redactor" | "stopSignal">): Promise<PreflightResult>;
  /** The prompt template of a first run. */
  promptFile(a: C): string;
  /** The seat's login dir (the CLI's config home it was logged in with), if the kind keeps one; no run sees it. */
  home?(a: C, stateDir: string): string;
  /** What the kind's CLI keeps in its config home, by role: each run gets a fresh one (agents/cli-home.ts). */
  readonly cliHome?: CliHomeLayout;
  /**
   * Checks from outside the jail what a run reported on its own stream (a usage limit, a lost login),
   * with the seat's own credentials (agents/probe.ts); absent: the kind cannot tell (its claim stays unconfirmed).
   */
  check?(claim: Claim, a: C, ctx: Omit<KindContext, "clock" | "redactor" | "stopSignal">): Promise<ClaimCheck>;
  /**
   * The ways an operator logs this seat in, the usual one first: `init` prints them, the pre-flight's fix
   * names them (one text for both). None: the kind has no login of its own.
   */
  login?(a: C, stateDir: string): LoginStep[];
  /**
   * Where its CLI talks, for a jail whose network is the seat's proxy: its API and login hosts, and the
   * API the proxy forwards for it with the seat's keys (which then never enter the jail).
   */
  egress?(a: C, env: NodeJS.ProcessEnv): KindEgress;
  /** The program `doctor` looks for on PATH, if the kind runs one. */
  program?(a: C): string | undefined;
  /**
   * A subscription the seat is logged in with, and the environment variable its CLI would use over it (an API key,
   * billed per token), when the seat has both: `doctor` fails the seat naming the variable.
   */
  planOverride?(a: C, ctx: { stateDir: string; env: NodeJS.ProcessEnv }): Promise<{ variable: string; plan: string } | null>;
  /** The CLI's tested versions (agents/tested.ts) and the argv whose `--version` names the installed one. */
  readonly version?: { range: TestedRange; command(a: C): readonly string[] };
  /** Images the kind's CLI starts besides its program's (Codex's native binaries), shown execute-only in the jail (jail/images.ts). */
  images?(a: C, env: NodeJS.ProcessEnv): string[];
}

/** Declares a kind with its config type tied to its schema. */
export function defineKind<S extends z.ZodObject>(k: Omit<AgentKind<z.output<S> & AgentConfig>, "schema"> & { schema: S }): AgentKind {
  return k as unknown as AgentKind;
}

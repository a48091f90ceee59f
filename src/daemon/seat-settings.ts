// The settings of a seat, built once from the config at its start (build.ts): the seat's own half (its
// pauses, its stop, its health window, how it stops an agent it adopted) and the half its runs read — the
// values in milliseconds, the defaults applied, the state dir's paths resolved. Nothing below the seat
// reads the config itself (scripts/check-homes.mjs); a run gets exactly its half, the seat reads its own.
import { homedir } from "node:os";
import { join } from "node:path";
import { defaultShareDir } from "../board/index.js";
import type { Config, OpsConfig } from "../config/schema.js";
import { imageCacheOf } from "../jail/policy.js";
import { SECRET_DIRS } from "../jail/roots.js";
import type { RunSettings } from "../run/context.js";
import { skillRootsFor } from "../skills/roots.js";
import { statePath } from "../state/layout.js";
import type { WorkspaceSettings } from "../workspace/resolve.js";

/** The Hermes home the board's CLI is told (hermes.home, its env, the bridge's), else ~/.hermes. */
const hermesHome = (c: Config, env: NodeJS.ProcessEnv) => c.hermes.home ?? c.hermes.env.HERMES_HOME ?? env.HERMES_HOME ?? join(homedir(), ".hermes");

/** Where the seat's tasks' workspaces may be and may never be (workspace/resolve.ts). */
export function workspaceSettings(c: Config, env: NodeJS.ProcessEnv): WorkspaceSettings {
  // A mapped board's Hermes root is a pathMap key (the board host's HERMES_HOME or above it).
  const homes = new Set<string>([hermesHome(c, env), ...Object.keys(c.workspace.pathMap)]);
  return {
    mode: c.workspace.mode,
    allowedRoots: c.workspace.allowedRoots,
    pathMap: c.workspace.pathMap,
    localRoot: c.workspace.localRoot ?? statePath(c.stateDir, "checkouts"),
    repos: c.workspace.repos,
    push: c.workspace.push,
    branches: { prefix: c.workspace.branchPrefix, allowed: c.workspace.pushBranches },
    hermesHomes: [...homes],
    // The bridge's own folders beside the state dir — the hubs' sockets, the CLIs' images, its secrets — are
    // never a workspace either: a workspace is handed to the agent's uid and shown to it whole.
    bridgeDirs: [
      c.stateDir,
      // every hub's of this user, whether this seat shares or not: another seat's may
      ...[c.hermes.shareDir, defaultShareDir(env)].filter((d): d is string => d !== undefined),
      imageCacheOf(c.agent.isolation, env),
      ...SECRET_DIRS,
      ...[c.http.tokenFile, c.provenance?.file].filter((f): f is string => typeof f === "string"),
    ],
    seat: c.assignee,
  };
}

/** Where the seat looks a task's skills up (skills/roots.ts). */
export const skillRoots = (c: Config, env: NodeJS.ProcessEnv): string[] =>
  skillRootsFor({ dirs: c.agent.skillDirs, hermesHome: hermesHome(c, env), command: c.hermes.command }, env);

/** The seat's own half: what its pauses, its stop, its health and its restart recovery read, in milliseconds. */
export interface SeatSettings {
  /** seat.limitMarginSeconds: added to a usage limit's reset before the seat claims again. */
  limitMarginMs: number;
  /** seat.maxLimitPauseHours: the longest a limit pauses the seat. */
  maxLimitPauseMs: number;
  /** seat.unreachablePauseSeconds: the pause after the agent's API was out of reach. */
  unreachablePauseMs: number;
  /** shutdown.graceSeconds: how long a stop lets runs finish before it aborts them. */
  shutdownGraceMs: number;
  /** The seat is healthy while every board answered within this (two sweeps and a call's timeout). */
  healthWindowMs: number;
  /** agent.killGraceSeconds and agent.stallSeconds: how an adopted agent is stopped and judged stalled. */
  killGraceMs: number;
  stallMs: number;
}

export function seatSettings(c: Config): SeatSettings {
  return {
    limitMarginMs: c.seat.limitMarginSeconds * 1000,
    maxLimitPauseMs: c.seat.maxLimitPauseHours * 3600_000,
    unreachablePauseMs: c.seat.unreachablePauseSeconds * 1000,
    shutdownGraceMs: c.shutdown.graceSeconds * 1000,
    healthWindowMs: (c.discovery.sweepSeconds * 2 + c.hermes.callTimeoutSeconds) * 1000,
    killGraceMs: c.agent.killGraceSeconds * 1000,
    stallMs: c.agent.stallSeconds * 1000,
  };
}

/** The board calls' and the alerts' times (also built by `outbox`, which has no seat). */
export function callTimes(c: Pick<OpsConfig, "hermes" | "webhook">): { callTimeoutMs: number; retryDeadlineMs: number; webhookTimeoutMs: number } {
  return {
    callTimeoutMs: c.hermes.callTimeoutSeconds * 1000,
    retryDeadlineMs: c.hermes.retry.deadlineSeconds * 1000,
    webhookTimeoutMs: c.webhook.timeoutSeconds * 1000,
  };
}

export function runSettings(c: Config): RunSettings {
  return {
    seat: c.seat.name,
    lane: c.assignee,
    author: c.author,
    onLimit: c.seat.onLimit,
    onShutdown: c.shutdown.inFlight,
    maxLimitPauseMs: c.seat.maxLimitPauseHours * 3600_000,
    unconfirmedPauseMs: c.seat.unconfirmedPauseMinutes * 60_000,
    steering: c.steering,
    review: { mode: c.close.review, reviewer: c.close.reviewer, maxRounds: c.close.maxReviewRounds },
    killGraceMs: c.agent.killGraceSeconds * 1000,
    retry: { retries: c.agent.retries, baseMs: c.agent.retryBackoffSeconds * 1000, maxMs: c.agent.retryBackoffMaxSeconds * 1000 },
    unreachableMs: c.agent.unreachableSeconds * 1000,
    runsDir: statePath(c.stateDir, "runs"),
    privateRoot: statePath(c.stateDir, "private"),
    continuity: { enabled: c.agent.resume, budget: c.agent.resumeBudget },
    gate: c.gate,
    budget: c.agent.budget,
  };
}

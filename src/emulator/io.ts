// The emulator's output contract: stdout, stderr and an exit code, thrown to the entry point.

export class EmuExit extends Error {
  constructor(
    readonly code: number,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(`exit ${code}`);
  }
}

export interface Ctx {
  env: NodeJS.ProcessEnv;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** A domain failure: `kanban: …`-style message, exit 1 (exit 0 under the v0.14 compat switch). */
export function fail(ctx: Ctx, message: string): never {
  throw new EmuExit(legacyExitCodes(ctx.env) ? 0 : 1, "", `${message}\n`);
}

/**
 * HERMES_EMULATOR_COMPAT=0.21: Hermes 0.21.3 (the line users install since 2026-09), replayed byte for
 * byte against its recordings (test/fixtures/hermes-021/transcripts): its help, completion contracts,
 * the review hand-off as 0.21 has it (request-review --metadata/--force, reassigning to the reviewer and
 * back), the worker-scope guard on closes, and 0.21's extra task and event fields.
 */
export function v021(env: NodeJS.ProcessEnv): boolean {
  // 0.21.5 (verbs/line0215.ts) is 0.21.3 and what 0.21.4/0.21.5 add to it; 0.21.6 (verbs/line0216.ts) is 0.21.5 and more.
  const c = env.HERMES_EMULATOR_COMPAT;
  return c === "0.21" || c === "0.21.5" || c === "0.21.6";
}

export function legacyExitCodes(env: NodeJS.ProcessEnv): boolean {
  return env.HERMES_EMULATOR_COMPAT === "0.14";
}

/**
 * HERMES_EMULATOR_COMPAT=named-claims: the upstream line after 0.21.3, modelled from its public source and
 * tests (verbs/named-claims.ts): named claims with renewal and idempotent replay, the live-claim fence on
 * closes, compare-and-set guards, reclaims counted as failures (gave_up), lease fields in show --json.
 */
export function namedClaims(env: NodeJS.ProcessEnv): boolean {
  return env.HERMES_EMULATOR_COMPAT === "named-claims";
}

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

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
 * HERMES_EMULATOR_COMPAT=next: a later Hermes whose CLI heartbeat renews the claim (`heartbeat --ttl`,
 * like heartbeat_claim(ttl_seconds) in its kanban_db). Tests the capability path 0.20.0 cannot show.
 */
export function renewingHeartbeat(env: NodeJS.ProcessEnv): boolean {
  return env.HERMES_EMULATOR_COMPAT === "next";
}

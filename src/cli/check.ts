// One line of `doctor`: a check that passed, or failed with the fix to apply.
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  fix: string;
  /** Passed, with something to look at (an untested CLI version, a Hermes below 0.21.6): printed `warn`, with its fix when it has one; doctor still exits 0. */
  warn?: boolean;
}

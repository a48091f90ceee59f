// One line of `doctor`: a check that passed, or failed with the fix to apply; a warning passes but shows its fix.
export interface Check {
  name: string;
  ok: boolean;
  /** Passed, with something to do (printed WARN with its fix; doctor still exits 0). */
  warn?: boolean;
  detail: string;
  fix: string;
}

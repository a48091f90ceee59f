// Typed errors shared by every layer. Data lives in fields, the origin in `cause`.
// `PermanentError` is the one marker the retry policy checks: never retry it.

export class BridgeError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Anything that retrying cannot fix (bad input, a bug, a definitive domain answer). */
export class PermanentError extends BridgeError {}

export class ConfigError extends PermanentError {
  readonly issues: readonly { path: string; message: string }[];
  constructor(issues: readonly { path: string; message: string }[], options?: { cause?: unknown }) {
    super("config_invalid", `invalid configuration:\n${issues.map((i) => `  - ${i.path || "(root)"}: ${i.message}`).join("\n")}`, options);
    this.issues = issues;
  }
}

/** A CLI usage problem of the bridge itself (bad flag value…). */
export class ExitError extends BridgeError {
  readonly exitCode: number;
  constructor(exitCode: number, message: string, options?: { cause?: unknown }) {
    super("exit", message, options);
    this.exitCode = exitCode;
  }
}

export function toError(value: unknown): Error {
  if (value instanceof Error) return value;
  if (typeof value === "string") return new Error(value);
  try {
    return new Error(JSON.stringify(value));
  } catch {
    return new Error(String(value));
  }
}

export function isPermanent(err: unknown): boolean {
  return err instanceof PermanentError;
}

/**
 * Short single-line description of an error chain, for logs, comments and alerts: each cause once — a
 * cause whose message the text already holds (a wrapper that quotes its cause, a rethrow with the same
 * message) adds nothing and is left out.
 */
export function describeError(err: unknown, depth = 3): string {
  const e = toError(err);
  const parts = [e.message.trim()];
  const seen = new Set<unknown>([e]);
  let cur: unknown = e.cause;
  for (let added = 0; added < depth && cur && !seen.has(cur); ) {
    seen.add(cur);
    const c = toError(cur);
    const m = c.message.trim();
    if (m !== "" && !parts.some((p) => p.includes(m))) {
      parts.push(`caused by: ${m}`);
      added += 1;
    }
    cur = c.cause;
  }
  return parts.join(" — ");
}

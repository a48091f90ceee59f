// Every outgoing text passes here: API keys, bearer tokens, PEM private keys, password-style pairs
// and phrases, URLs with credentials, the literal values of env vars the config marks secret, and
// (by default) the values of secret-looking variables of the bridge's own environment.

export const REDACTED = "[REDACTED]";

const PATTERNS: [RegExp, string | ((...m: string[]) => string)][] = [
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, REDACTED],
  [/\bsk-ant-[A-Za-z0-9_-]{8,}/g, REDACTED],
  [/\bsk-(?:proj-|live-|test-)?[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, REDACTED],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, REDACTED],
  [/\bxox[abposr]-[A-Za-z0-9-]{8,}/g, REDACTED],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  [/\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, (_m, p1 = "") => `${p1}${REDACTED}`],
  [/\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/]+):([^\s@/]+)@/gi, (_m, scheme = "", user = "") => `${scheme}${user}:${REDACTED}@`],
  [
    /("(?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?token|client[_-]?secret|private[_-]?key)"\s*:\s*)"[^"]*"/gi,
    (_m, p1 = "") => `${p1}"${REDACTED}"`,
  ],
  // key=value / key: value (not PWD=, the working directory).
  [
    /\b((?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|access[_-]?token|client[_-]?secret|auth)\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&"']+)/gi,
    (_m, p1 = "") => `${p1}${REDACTED}`,
  ],
  // Prose: "my password is hunter2", "the token was abc123".
  [/\b((?:password|passwd|passphrase|secret|api key|token)\s+(?:is|was|=)\s+)(["']?)([^\s"',;]{3,})\2/gi, (_m, p1 = "") => `${p1}${REDACTED}`],
];

/** Names of variables whose values are secrets by their name (the values of the bridge's environment). */
const SECRET_NAME = /(?:^|_)(?:KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASS|CREDENTIALS?|PRIVATE)(?:_|$)|^AWS_|PASSWORD|APIKEY/i;
const NOT_SECRET = /_(?:REGION|PROFILE|PATH|DIR|FILE|HOST|PORT|URL|ENDPOINT|ID)$|^AWS_(?:REGION|DEFAULT_REGION|PROFILE|CONFIG_FILE|SHARED_CREDENTIALS_FILE)$/i;

export function secretLookingNames(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env).filter((k) => SECRET_NAME.test(k) && !NOT_SECRET.test(k));
}

export class Redactor {
  private readonly literals: string[];
  private readonly paths: [string, string][];
  /**
   * `paths`: absolute paths of the bridge's own (the state dir) and what is shown instead — the board
   * never learns where the seat keeps its state.
   */
  constructor(literals: readonly string[] = [], paths: Readonly<Record<string, string>> = {}) {
    // Longest first so a secret that contains another is replaced whole; very short values would
    // shred ordinary text, so they are not treated as secrets.
    this.literals = [...new Set(literals.filter((l) => l.length >= 6))].sort((a, b) => b.length - a.length);
    this.paths = Object.entries(paths)
      .filter(([from]) => from.length > 1)
      .sort((a, b) => b[0].length - a[0].length);
  }

  /** The values of `names`, and with `fromEnvironment` of every secret-looking variable (≥ 8 chars). */
  static fromEnv(names: readonly string[], env: NodeJS.ProcessEnv, fromEnvironment = true, paths: Readonly<Record<string, string>> = {}): Redactor {
    const named = names.map((n) => env[n]);
    const looking = fromEnvironment
      ? secretLookingNames(env)
          .map((n) => env[n])
          .filter((v) => v !== undefined && v.length >= 8)
      : [];
    return new Redactor(
      [...named, ...looking].filter((v): v is string => typeof v === "string"),
      paths,
    );
  }

  redact(text: string): string {
    let out = text;
    for (const [from, to] of this.paths) out = out.split(from).join(to);
    for (const lit of this.literals) out = out.split(lit).join(REDACTED);
    for (const [re, rep] of PATTERNS) out = out.replace(re, rep as (substring: string, ...args: string[]) => string);
    return out;
  }

  /** Redacts every string inside a JSON-like value (keys included). */
  redactDeep<T>(value: T): T {
    if (typeof value === "string") return this.redact(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.redactDeep(v)) as T;
    if (value && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[this.redact(k)] = this.redactDeep(v);
      return out as T;
    }
    return value;
  }
}

/** A URL without its user info and query (credentials live there). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.protocol === "file:") return url;
    u.username = "";
    u.password = "";
    u.search = "";
    return u.toString().replace(/\/$/, "");
  } catch {
    // scp-like git remotes (git@host:path) carry no password
    return /^[\w.-]+@[\w.-]+:/.test(url) || url.startsWith("/") ? url : "(unparsable URL)";
  }
}

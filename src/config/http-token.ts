// The observability server's token (http.tokenEnv or http.tokenFile): required whenever the server is
// bound to an address other machines can reach. Read once at start; a token that is named but missing
// is a config error naming the key, as a webhook secret is.
import { readFileSync } from "node:fs";

/** A bind address only this machine can reach. */
export const isLoopbackHost = (host: string) => /^(localhost|127(?:\.\d{1,3}){3}|::1|\[::1\])$/i.test(host);

export interface HttpTokenConfig {
  http: { port?: number | undefined; host: string; tokenEnv?: string | undefined; tokenFile?: string | undefined };
}

/** The token, or the config issue that keeps the server from starting. */
export function httpToken(c: HttpTokenConfig, env: NodeJS.ProcessEnv): { token: string | undefined } | { issue: { path: string; message: string } } {
  const h = c.http;
  if (h.tokenEnv) {
    const v = env[h.tokenEnv]?.trim();
    if (!v) return { issue: { path: "http.tokenEnv", message: `names ${h.tokenEnv}, which is not set (or empty)` } };
    return { token: v };
  }
  if (h.tokenFile) {
    let v: string;
    try {
      v = readFileSync(h.tokenFile, "utf8").trim();
    } catch (err) {
      return { issue: { path: "http.tokenFile", message: `${h.tokenFile} cannot be read (${(err as Error).message})` } };
    }
    if (!v) return { issue: { path: "http.tokenFile", message: `${h.tokenFile} is empty` } };
    return { token: v };
  }
  if (h.port !== undefined && !isLoopbackHost(h.host))
    return {
      issue: {
        path: "http.host",
        message: `${h.host} is reachable from other machines: set http.tokenEnv (or http.tokenFile) so /, /status and /metrics need a token, or bind 127.0.0.1`,
      },
    };
  return { token: undefined };
}

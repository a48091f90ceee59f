// hermes.share: host — where the seat's hubs keep their sockets, checked at the seat's start (a directory
// others can enter is refused, naming the key), so a bad one never reaches the first call.
import { defaultShareDir, hubDir } from "../board/index.js";
import type { OpsConfig } from "../config/schema.js";
import { ConfigError } from "../errors/index.js";

export function shareOf(c: Pick<OpsConfig, "hermes">, env: NodeJS.ProcessEnv): { dir: string } | undefined {
  if (c.hermes.share !== "host") return undefined;
  const dir = c.hermes.shareDir ?? defaultShareDir(env);
  try {
    return { dir: hubDir(dir) };
  } catch (err) {
    throw new ConfigError([{ path: "hermes.shareDir", message: (err as Error).message.replace(/^hermes\.shareDir: /, "") }], { cause: err });
  }
}

// How the operator runs this CLI on this host, for the commands it prints next: `hermes-bridge` when it was
// started as the installed command (npm install -g, npx, node_modules/.bin), else `node <absolute path of main.js>` —
// a checkout has no `hermes-bridge` on PATH, and a printed command must run as printed.
import { basename, resolve } from "node:path";

export function selfArgv(script: string | undefined = process.argv[1]): string[] {
  if (!script || basename(script) === "hermes-bridge") return ["hermes-bridge"];
  return ["node", resolve(script)];
}

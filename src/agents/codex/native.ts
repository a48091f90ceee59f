// The npm `codex` is a Node launcher (`bin/codex.js`) that starts Codex's native binary from the platform
// package beside it (`@openai/codex-linux-x64` → `vendor/<triple>/bin/codex`), passing its stdio on: both
// processes hold the CLI's stream, so both images are shown execute-only in the jail (jail/images.ts) —
// the launcher's through its interpreter, the native ones named here, found the way codex.js finds them.
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { resolveProgram } from "../../jail/program.js";
import { isInside, underReal } from "../../agent-files/contain.js";

const TARGETS: Readonly<Record<string, readonly [string, string]>> = {
  x64: ["x86_64-unknown-linux-musl", "@openai/codex-linux-x64"],
  arm64: ["aarch64-unknown-linux-musl", "@openai/codex-linux-arm64"],
};

/** The native images an npm-installed `codex` launcher starts (real paths), or none for any other program. */
export function codexNativeImages(
  program: string,
  path: string | undefined,
  cwd: string,
  arch: string = process.arch,
  workspace: string | null = cwd,
): string[] {
  const target = TARGETS[arch];
  const abs = resolveProgram(program, path, cwd);
  const ours = (p: string) => workspace !== null && isInside(workspace, p);
  // A launcher of the workspace's is the agent's own file: nothing it points at is copied or shown.
  if (!target || !abs || ours(abs)) return [];
  try {
    const launcher = realpathSync(abs);
    if (ours(launcher)) return [];
    const root = dirname(dirname(launcher));
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name?: unknown };
    if (pkg.name !== "@openai/codex") return [];
    const [triple, platformPackage] = target;
    let vendor = join(root, "vendor");
    try {
      vendor = join(dirname(createRequire(join(root, "package.json")).resolve(`${platformPackage}/package.json`)), "vendor");
    } catch {
      // the binaries in the launcher's own package (an older layout)
    }
    const bin = realpathSync(join(vendor, triple, "bin"));
    // Only the platform package's own binaries: a link out of its bin folder is no image of Codex's.
    return readdirSync(bin)
      .map((n) => realpathSync(join(bin, n)))
      .filter((p) => underReal(bin, p) && !ours(p) && statSync(p).isFile() && (statSync(p).mode & 0o111) !== 0);
  } catch {
    return [];
  }
}

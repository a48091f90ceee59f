// The daemon installs and runs without a native module: better-sqlite3 is an optional dependency that
// only the bundled emulator loads, when it opens a board. Without it the emulator (and so the demo)
// exits naming the package and what to do; nothing outside the emulator's build imports it.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The compiled emulator alone in a temporary dir (it imports nothing of the bridge), with what node_modules it is given. */
function emulatorCopy(modules: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "hkb-emu-copy-"));
  dirs.push(dir);
  cpSync(join("dist", "emulator"), join(dir, "emulator"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "copy", type: "module" }));
  for (const [name, main] of Object.entries(modules)) {
    mkdirSync(join(dir, "node_modules", name), { recursive: true });
    writeFileSync(join(dir, "node_modules", name, "package.json"), JSON.stringify({ name, main: "index.js" }));
    writeFileSync(join(dir, "node_modules", name, "index.js"), main);
  }
  return dir;
}

function createBoard(dir: string) {
  const home = join(dir, "home");
  return spawnSync(process.execPath, [join(dir, "emulator", "bin.js"), "kanban", "boards", "create", "b"], {
    env: { PATH: process.env.PATH ?? "", HERMES_HOME: home, HOME: home },
    encoding: "utf8",
  });
}

const jsFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? jsFiles(join(dir, e.name)) : e.name.endsWith(".js") ? [join(dir, e.name)] : []));

describe("install weight: better-sqlite3 is the emulator's alone", () => {
  it("is an optional dependency, allowed its install script, and imported by the emulator's driver only (and its one-file bin)", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as Record<string, Record<string, unknown>>;
    expect(pkg.dependencies?.["better-sqlite3"]).toBeUndefined();
    expect(pkg.optionalDependencies?.["better-sqlite3"]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.allowScripts?.["better-sqlite3"]).toBe(true);
    const importers = jsFiles("dist").filter((f) => readFileSync(f, "utf8").includes("better-sqlite3"));
    // The driver, and the bin that scripts/build.mjs bundles it into: nothing of the bridge's.
    expect(importers.sort()).toEqual([join("dist", "emulator", "bin.js"), join("dist", "emulator", "sqlite.js")]);
  });

  it("the emulator's bin is one file (scripts/build.mjs): it loads no module of its own by path", () => {
    const bin = readFileSync(join("dist", "emulator", "bin.js"), "utf8");
    expect(bin.startsWith("#!/usr/bin/env node\n")).toBe(true);
    // any static import or re-export (one line or many), bare import or dynamic import of a relative path
    expect(bin.match(/\b(?:from|import)\s*\(?\s*["']\.{1,2}\//g) ?? []).toEqual([]);
  });

  it("without it the emulator exits 1 naming the package and the install that brings it", () => {
    const r = createBoard(emulatorCopy({}));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("the bundled emulator needs better-sqlite3, an optional dependency of hermes-kanban-bridge, which is not installed");
    expect(r.stderr).toContain("without --omit=optional");
    expect(r.stderr).not.toContain("Traceback");
  });

  it("a build that does not load (another Node's ABI) is named as such, with the rebuild", () => {
    const r = createBoard(
      emulatorCopy({ "better-sqlite3": 'throw new Error("was compiled against a different Node.js version using NODE_MODULE_VERSION 108");' }),
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("which is installed but did not load (was compiled against a different Node.js version");
    expect(r.stderr).toContain("npm rebuild better-sqlite3");
  });
});

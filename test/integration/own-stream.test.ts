// The pieces that keep the CLI's stream its own (jail issue, row 5's last door; the jail test is
// test/hostile/jail-doors-3.test.ts row 15): the process runner gives the stream on a descriptor of its
// own, the relay hands it to its child and keeps none, and the images cache makes execute-only copies.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { codexNativeImages } from "../../src/agents/codex/native.js";
import { ExecOnlyImages, defaultImageCache, probeImageCache } from "../../src/jail/image-cache.js";
import { imageKind, programImages, reachedBy } from "../../src/jail/images.js";
import { outputFiles } from "../../src/agents/cli-agent.js";
import { runProcess } from "../../src/process/runner.js";
import { passableTempDir } from "../helpers/tmp.js";
import { AGENT, runBridge } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { probeBwrap } from "../../src/jail/policy.js";
import { NODE_RELAY, PYTHON_RELAY } from "../../src/jail/relay.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;

const ROOT = process.getuid?.() === 0;
/** Both relays (jail/relay.ts): the same contract. */
const RELAYS = [["Node", NODE_RELAY], ...(existsSync(PYTHON_RELAY[0] ?? "") ? [["Python", PYTHON_RELAY] as const] : [])] as const;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const scratch = () => {
  const d = passableTempDir("hkb-stream-");
  dirs.push(d);
  return d;
};

describe("the stream on a descriptor of its own (RunOptions.streamFd)", () => {
  it("on pipes: what the child writes to the descriptor is its stdout; its 1 and 2 are both stderr", async () => {
    const r = await runProcess({ argv: ["/bin/sh", "-c", "echo stream >&3; echo diag; echo err >&2"], env: {}, streamFd: 3 });
    expect(r.stdout).toBe("stream\n");
    expect(r.stderr).toContain("diag");
    expect(r.stderr).toContain("err");
  });

  it("to output files, after an inherited file", async () => {
    const dir = scratch();
    const seccomp = join(dir, "filter");
    writeFileSync(seccomp, "x");
    const lines: string[] = [];
    const r = await runProcess({
      argv: ["/bin/sh", "-c", "cat <&3; echo stream >&4; echo diag"],
      env: {},
      inheritFiles: [seccomp],
      streamFd: 4,
      outputFiles: { ...outputFiles(dir), maxBytes: 1 << 20 },
      onStdoutLine: (l) => lines.push(l),
    });
    expect(lines).toEqual(["stream"]);
    expect(r.stderr).toContain("xdiag");
  });

  it("a descriptor that is not the one after the inherited files is refused", async () => {
    await expect(runProcess({ argv: ["/bin/true"], env: {}, streamFd: 5 })).rejects.toThrow(/streamFd 5/);
  });

  it("the lifeline: a socket on the descriptor after the stream, that only the runner's end keeps open; a misplaced one is refused", async () => {
    const script = 'readlink /proc/$$/fd/4 >&2; IFS= read -r line <&4 && echo "a line: [$line]" >&3';
    const r = await runProcess({ argv: ["/bin/sh", "-c", script], env: {}, streamFd: 3, lifelineFd: 4 });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("a line: []\n");
    expect(r.stderr).toMatch(/^socket:\[\d+\]/);
    await expect(runProcess({ argv: ["/bin/true"], env: {}, streamFd: 3, lifelineFd: 3 })).rejects.toThrow(
      /lifelineFd 3 is not the descriptor after the inherited files and the stream \(4\)/,
    );
  });
});

describe.each(RELAYS)("the CLI's stream through the relay (%s)", (_, relay) => {
  it("the relay makes it its child's stdout and keeps none of it", async () => {
    // the child compares its stdout with every descriptor of its parent (the relay)
    const check = 'me=$(readlink /proc/$$/fd/1); for f in /proc/$PPID/fd/*; do [ "$(readlink "$f")" = "$me" ] && echo RELAY-HOLDS; done; echo checked';
    const socket = join(scratch(), "no-proxy.sock");
    const r = await runProcess({ argv: [...relay, "0", socket, "--stream", "3", "--", "/bin/sh", "-c", check], env: {}, streamFd: 3 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("checked\n");
  });

  it("so it does without a network (--no-network: a jail whose network is the host's, or none)", async () => {
    const check = 'me=$(readlink /proc/$$/fd/1); for f in /proc/$PPID/fd/*; do [ "$(readlink "$f")" = "$me" ] && echo RELAY-HOLDS; done; echo checked';
    const r = await runProcess({ argv: [...relay, "--no-network", "--stream", "3", "--", "/bin/sh", "-c", check], env: {}, streamFd: 3 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("checked\n");
  });

  it("control: without --stream the relay's child writes to the relay's own stdout, which the relay holds", async () => {
    const check = 'me=$(readlink /proc/$$/fd/1); for f in /proc/$PPID/fd/*; do [ "$(readlink "$f")" = "$me" ] && echo RELAY-HOLDS; done; true';
    const socket = join(scratch(), "no-proxy.sock");
    const r = await runProcess({ argv: [...relay, "0", socket, "--", "/bin/sh", "-c", check], env: {} });
    expect(r.stdout).toContain("RELAY-HOLDS");
  });
});

describe("execute-only images (jail/images.ts)", () => {
  it("tells an image from a script and finds a script's interpreter (through env on the PATH); nothing in the workspace", () => {
    const dir = scratch();
    const bin = join(dir, "bin");
    mkdirSync(bin);
    copyFileSync("/bin/true", join(bin, "tool"));
    chmodSync(join(bin, "tool"), 0o755);
    writeFileSync(join(bin, "launcher"), "#!/usr/bin/env tool\n", { mode: 0o755 });
    writeFileSync(join(bin, "plain"), "#!/bin/sh\necho\n", { mode: 0o755 });
    writeFileSync(join(bin, "data"), "not a program\n", { mode: 0o755 });
    expect(imageKind(join(bin, "tool"))).toEqual({ elf: true });
    expect(imageKind(join(bin, "launcher"))).toEqual({ interpreter: "/usr/bin/env", arg: "tool" });
    const ws = join(dir, "ws");
    mkdirSync(ws);
    const images = (program: string, path: string) => programImages(program, path, ws).map((i) => i.image);
    expect(images("launcher", bin)).toEqual([join(bin, "tool")]);
    expect(images("tool", bin)).toEqual([join(bin, "tool")]);
    const sh = execFileSync("readlink", ["-f", "/bin/sh"], { encoding: "utf8" }).trim();
    expect(programImages(join(bin, "plain"), "", ws)).toEqual([{ image: sh, at: [...new Set([sh, "/bin/sh"])] }]);
    expect(images(join(bin, "data"), "")).toEqual([]);
    // reached through a linked folder: bound over the path it was found at too
    symlinkSync(bin, join(dir, "linked"));
    expect(programImages(join(dir, "linked", "tool"), "", ws)).toEqual([{ image: join(bin, "tool"), at: [join(bin, "tool"), join(dir, "linked", "tool")] }]);
    // an image below a shown folder that is a link (a linked node_modules): reached below the link too
    expect(reachedBy(join(bin, "tool"), [join(dir, "linked"), "/usr"])).toEqual([join(bin, "tool"), join(dir, "linked", "tool")]);
    // a program of the workspace is the agent's own file: nothing of it is read or copied
    expect(programImages("./tool", "", bin)).toEqual([]);
  });

  it("copies once per version of the source, execute-only; a new version replaces an old copy", async () => {
    const dir = scratch();
    const src = join(dir, "cli");
    copyFileSync("/bin/true", src);
    const cache = new ExecOnlyImages(join(dir, "cache"));
    const a = await cache.copyOf(src);
    expect(statSync(a).mode & 0o777).toBe(ROOT ? 0o711 : 0o111);
    expect(statSync(a).size).toBe(statSync(src).size);
    const ino = statSync(a).ino;
    expect(await cache.copyOf(src)).toBe(a);
    expect(statSync(a).ino).toBe(ino); // not copied again
    // an hour-old copy of an earlier version is dropped when a new version is copied
    utimesSync(a, new Date(0), new Date(0));
    writeFileSync(src, Buffer.concat([Buffer.from(execFileSync("cat", ["/bin/true"])), Buffer.from("x")]));
    const b = await cache.copyOf(src);
    expect(b).not.toBe(a);
    expect(readdirSync(join(dir, "cache"))).toEqual([b.split("/").pop()]);
  });

  it("a copy is checked once an hour, not once a run: within the hour it is handed out untouched, after it checked and its time moved", async () => {
    const dir = scratch();
    const src = join(dir, "cli");
    copyFileSync("/bin/true", src);
    const clock = { now: () => Date.parse("2026-12-05T10:00:00Z") };
    const cache = new ExecOnlyImages(join(dir, "cache"), { clock });
    const a = await cache.copyOf(src);
    expect(statSync(a).mtimeMs).toBe(clock.now());
    const old = new Date("2026-12-01T00:00:00Z");
    utimesSync(a, old, old);
    clock.now = () => Date.parse("2026-12-05T10:59:00Z");
    expect(await cache.copyOf(src)).toBe(a);
    expect(statSync(a).mtimeMs).toBe(old.getTime());
    clock.now = () => Date.parse("2026-12-05T11:01:00Z");
    expect(await cache.copyOf(src)).toBe(a);
    expect(statSync(a).mtimeMs).toBe(clock.now());
  });

  it.skipIf(!ROOT)("as root the agent's uid runs the copy but cannot read it", async () => {
    const dir = scratch();
    const src = join(dir, "cli");
    copyFileSync("/bin/true", src);
    const cache = new ExecOnlyImages(join(dir, "cache"));
    const copy = await cache.copyOf(src);
    chmodSync(join(dir, "cache"), 0o755);
    const as = { uid: 65534, gid: 65534 };
    expect((await runProcess({ argv: [copy], env: {}, ...as })).exitCode).toBe(0);
    const read = await runProcess({ argv: ["/bin/cat", copy], env: {}, ...as });
    expect(read.exitCode).not.toBe(0);
    expect(read.stderr).toMatch(/Permission denied/);
  });

  it("Codex's native binaries: its platform package's own, never a link out of it, never a launcher of the workspace's", () => {
    const dir = scratch();
    const nm = join(dir, "node_modules");
    const launcherDir = join(nm, "@openai", "codex");
    mkdirSync(join(launcherDir, "bin"), { recursive: true });
    writeFileSync(join(launcherDir, "package.json"), JSON.stringify({ name: "@openai/codex" }));
    writeFileSync(join(launcherDir, "bin", "codex.js"), "#!/usr/bin/env node\n", { mode: 0o755 });
    const bin = join(nm, "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(nm, "@openai", "codex-linux-x64", "package.json"), JSON.stringify({ name: "@openai/codex-linux-x64" }));
    copyFileSync("/bin/true", join(bin, "codex"));
    chmodSync(join(bin, "codex"), 0o755);
    const secret = join(dir, "root-only");
    copyFileSync("/bin/true", secret);
    chmodSync(secret, 0o700);
    symlinkSync(secret, join(bin, "helper"));
    const ws = join(dir, "ws");
    mkdirSync(ws);
    const launcher = join(launcherDir, "bin", "codex.js");
    expect(codexNativeImages(launcher, "", ws, "x64")).toEqual([join(bin, "codex")]);
    // the same tree planted in the workspace (a relative command): nothing of it is copied or shown
    expect(codexNativeImages(launcher, "", dir, "x64")).toEqual([]);
    expect(codexNativeImages("/bin/true", "", ws, "x64")).toEqual([]);
  });

  it("seats of one host copy an image once (a lock per copy); a copy unused for a week and an interrupted copy's leftovers go", async () => {
    const dir = scratch();
    const src = join(dir, "cli");
    copyFileSync("/bin/true", src);
    const copied: string[] = [];
    const at = join(dir, "cache");
    const seats = [0, 1, 2].map(() => new ExecOnlyImages(at, { onCopied: (i) => copied.push(i) }));
    const got = await Promise.all(seats.map((s) => s.copyOf(src)));
    expect(new Set(got).size).toBe(1);
    expect(copied).toEqual([src]);
    // an old copy nobody used for a week, a copy's leftover from a crash, and a lock its dead copier left
    const old = join(at, "0000-old-cli");
    copyFileSync("/bin/true", old);
    const tmpLeft = join(at, "0000-x.1.abc.tmp");
    writeFileSync(tmpLeft, "partial");
    const lockLeft = join(at, "0000-y.lock");
    writeFileSync(lockLeft, "");
    const week = new Date(Date.now() - 8 * 24 * 3600_000);
    for (const p of [old, tmpLeft, lockLeft]) utimesSync(p, week, week);
    const other = join(dir, "cli-2");
    copyFileSync("/bin/false", other);
    await seats[0]?.copyOf(other);
    expect(readdirSync(at).sort()).toEqual([got[0], await seats[0]?.copyOf(other)].map((p) => p?.split("/").pop()).sort());
  });

  it("a seat whose image cache cannot hold its images does not start (it would block every task of its lane)", async () => {
    const dir = scratch();
    const file = join(dir, "a-file");
    writeFileSync(file, "x");
    const images = [realpathSync(process.execPath)];
    expect((await probeImageCache(file, images)).problem).toMatch(/a-file cannot hold the CLI's execute-only images/);
    expect((await probeImageCache("relative/images", images)).problem).toMatch(/is not an absolute path/);
    expect((await probeImageCache("/proc/hkb-images", images)).problem).toMatch(/kernel's own filesystem/);
    // the seat: refused at start, naming the key
    if (BWRAP) {
      const emu = await Emu.create();
      try {
        const agent = { kind: "command", command: [process.execPath, AGENT], isolation: { mode: "bwrap", imageCache: file } };
        await expect(runBridge(emu, { base: { agent } })).rejects.toThrow(/agent\.isolation\.imageCache: .*a-file cannot hold/);
      } finally {
        emu.cleanup();
      }
    }
    const ok = await probeImageCache(join(dir, "cache"), images);
    expect(ok.problem).toBeNull();
    expect(ok.images).toEqual([{ image: images[0], bytes: statSync(process.execPath).size, cached: false }]);
  });

  it("the default cache: /var/cache as root, else the user's cache dir", () => {
    expect(defaultImageCache({}, true)).toBe("/var/cache/hermes-bridge/images");
    expect(defaultImageCache({ XDG_CACHE_HOME: "/c" }, false)).toBe("/c/hermes-bridge/images");
  });
});

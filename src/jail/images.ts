// The agent CLI's own process is no door into its stream. Every process of a jail is one uid, and where
// the host has no Yama LSM the kernel lets a process open another's /proc/<pid>/mem of the same uid —
// seccomp cannot refuse an open(). What it does refuse is a process that is not "dumpable", and the kernel
// makes a process non-dumpable when it starts from an image it may execute but not read. So the CLI's
// images (the program, its `#!` interpreter, what the kind names: Codex's native binary) are shown in the
// jail as execute-only copies (image-cache.ts) bound over their paths: the CLI runs as before, and no
// other process of the jail can read or write its memory or reopen its descriptors through /proc. This
// file finds the images a program starts from.
import { closeSync, constants, openSync, readSync, realpathSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { isInside, underReal } from "../agent-files/contain.js";
import { resolveProgram } from "./program.js";

/** The first bytes of a file: an ELF image, a `#!` line (its interpreter and argument), or neither. */
export function imageKind(path: string): { elf: true } | { interpreter: string; arg?: string } | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK); // sync-io: a program the operator named, before the run
    const head = Buffer.alloc(256);
    const n = readSync(fd, head, 0, head.length, 0);
    if (n >= 4 && head.readUInt32BE(0) === 0x7f454c46) return { elf: true };
    if (head.subarray(0, 2).toString() !== "#!") return null;
    const line = head.subarray(2, n).toString("utf8").split("\n")[0]?.trim() ?? "";
    const [interpreter = "", arg] = line.split(/\s+/, 2);
    return interpreter.startsWith("/") ? { interpreter, ...(arg ? { arg } : {}) } : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The real path of `p` when it is a file (or a folder), else null. */
const realOf = (p: string, want: "file" | "dir" = "file"): string | null => {
  try {
    const r = realpathSync(p);
    const st = statSync(r);
    return (want === "file" ? st.isFile() : st.isDirectory()) ? r : null;
  } catch {
    return null;
  }
};
const real = (p: string) => realOf(p);

/** An image and the paths the jail may reach it by: its real path, and the path it was found at (through links). */
export interface ProgramImage {
  image: string;
  at: readonly string[];
}

const imageAt = (found: string, image: string): ProgramImage => ({ image, at: [...new Set([image, found])] });

/**
 * The images a program starts from: the program itself when it is an image, else its `#!` interpreter
 * (`/usr/bin/env node`: `node` on the run's PATH) — the processes that hold the CLI's stream. Each is bound
 * over its real path and over the path it was found at: a folder shown through a link (a `node_modules`
 * that is a link, a versions folder behind a `current` link) reaches the same file by another path.
 */
export function programImages(program: string, path: string | undefined, cwd: string, workspace: string | null = cwd): ProgramImage[] {
  const abs = resolveProgram(program, path, cwd);
  const file = abs ? real(abs) : null;
  // A program of the workspace's is the agent's own file (and no CLI of the seat's): nothing of it is read here.
  if (!abs || !file || (workspace !== null && (isInside(workspace, file) || isInside(workspace, abs)))) return [];
  const kind = imageKind(file);
  if (!kind) return [];
  if ("elf" in kind) return [imageAt(abs, file)];
  const viaEnv = basename(kind.interpreter) === "env" && kind.arg && !kind.arg.startsWith("-");
  const interpreter = viaEnv ? resolveProgram(kind.arg ?? "", path, cwd) : kind.interpreter;
  const image = interpreter ? real(interpreter) : null;
  return interpreter && image && "elf" in (imageKind(image) ?? {}) ? [imageAt(interpreter, image)] : [];
}

/**
 * Every path an image (a real path) is reached by in the jail: itself, and the same file below each shown
 * folder that is a link to a folder holding it (the jail binds such a folder as a folder: a program there
 * resolves its own files below it, not below the link's target).
 */
export function reachedBy(image: string, shown: readonly string[]): string[] {
  const out = new Set([image]);
  for (const folder of shown) {
    const target = realOf(folder, "dir");
    if (target && target !== folder && underReal(target, image)) out.add(join(folder, relative(target, image)));
  }
  return [...out];
}

// The jail's system-call filter (a classic BPF program bubblewrap loads with `--seccomp <fd>` just before
// it starts the agent). The jail's processes are all one uid, so without it any of them may attach to
// any other: a tool's child could ptrace the agent's CLI and write lines "of the CLI" into the pipe the
// bridge reads, or read the CLI's memory. Denied (EPERM), for every process of the jail:
// - another process's memory or execution: ptrace, process_vm_readv/writev;
// - a user namespace of its own (clone/unshare with CLONE_NEWUSER; clone3, whose flags a filter cannot
//   read, answers ENOSYS so the C library falls back to clone): no nested namespace can regain
//   capabilities over the jail's mounts — what bubblewrap's --disable-userns does, on every bwrap version;
// - the kernel's keyrings, BPF, perf events, userfaultfd (the usual kernel exploit primitives), modules,
//   kexec, open_by_handle_at (reaches files by handle, past the mount namespace), raw port I/O.
// Any other ABI (x86's 32-bit and x32 calls, whose numbers differ) is refused whole.
// Numbers: the kernel's syscall tables (arch/x86/entry/syscalls/syscall_64.tbl; the generic table of arm64).

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { replaceWith } from "../state/atomic.js";

type Arch = "x64" | "arm64";

const AUDIT_ARCH: Record<Arch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };

/** The denied calls, by name: [x86_64, arm64] numbers. */
export const SECCOMP_DENIED: Readonly<Record<string, readonly [number, number]>> = {
  ptrace: [101, 117],
  process_vm_readv: [310, 270],
  process_vm_writev: [311, 271],
  keyctl: [250, 219],
  add_key: [248, 217],
  request_key: [249, 218],
  bpf: [321, 280],
  perf_event_open: [298, 241],
  userfaultfd: [323, 282],
  init_module: [175, 105],
  finit_module: [313, 273],
  delete_module: [176, 106],
  kexec_load: [246, 104],
  kexec_file_load: [320, 294],
  open_by_handle_at: [304, 265],
  // another process's descriptors (a copy of the CLI's stdout, the pipe the bridge reads) — ptrace's door by another name
  pidfd_getfd: [438, 438],
  // io_uring: its operations pass by the filter (and it is much of the kernel's recent attack surface)
  io_uring_setup: [425, 425],
  io_uring_enter: [426, 426],
  io_uring_register: [427, 427],
  iopl: [172, -1],
  ioperm: [173, -1],
};
/** Calls whose first argument is a clone flags word: denied with CLONE_NEWUSER in it. */
const CLONE_LIKE: Readonly<Record<string, readonly [number, number]>> = { clone: [56, 220], unshare: [272, 97] };
const CLONE3: readonly [number, number] = [435, 435];
const CLONE_NEWUSER = 0x10000000;
const X32_BIT = 0x40000000;

const EPERM = 1;
const ENOSYS = 38;
const RET_ALLOW = 0x7fff0000;
const retErrno = (e: number) => 0x00050000 | e;

// Classic BPF opcodes (linux/filter.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
// struct seccomp_data: nr at 0, arch at 4, args[0] (low word, little-endian) at 16.
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** The filter for `arch` (Node's process.arch), as bubblewrap reads it; null where the jail has none (another architecture). */
export function seccompFilter(arch: string = process.arch): Buffer | null {
  if (arch !== "x64" && arch !== "arm64") return null;
  const a = arch === "x64" ? 0 : 1;
  const prog: (Insn | { to: "deny" | "nosys" | "clone"; code: number; k: number; jump: "jt" })[] = [];
  const insn = (code: number, k: number, jt = 0, jf = 0) => prog.push({ code, jt, jf, k });
  const jumpTo = (code: number, k: number, to: "deny" | "nosys" | "clone") => prog.push({ code, k, to, jump: "jt" });

  insn(LD_W_ABS, ARCH);
  insn(JEQ_K, AUDIT_ARCH[arch], 1, 0);
  insn(RET_K, retErrno(EPERM));
  insn(LD_W_ABS, NR);
  if (arch === "x64") jumpTo(JGE_K, X32_BIT, "deny");
  for (const nrs of Object.values(SECCOMP_DENIED)) if ((nrs[a] ?? -1) >= 0) jumpTo(JEQ_K, nrs[a] as number, "deny");
  jumpTo(JEQ_K, CLONE3[a], "nosys");
  for (const nrs of Object.values(CLONE_LIKE)) jumpTo(JEQ_K, nrs[a], "clone");
  insn(RET_K, RET_ALLOW);
  const labels = { clone: prog.length, deny: prog.length + 3, nosys: prog.length + 4 };
  insn(LD_W_ABS, ARG0_LOW); // clone / unshare: the flags word
  insn(JSET_K, CLONE_NEWUSER, 1, 0);
  insn(RET_K, RET_ALLOW);
  insn(RET_K, retErrno(EPERM)); // deny
  insn(RET_K, retErrno(ENOSYS)); // nosys

  const buf = Buffer.alloc(prog.length * 8);
  prog.forEach((p, i) => {
    const jt = "to" in p ? labels[p.to] - i - 1 : p.jt;
    const jf = "to" in p ? 0 : p.jf;
    if (jt > 255) throw new RangeError(`seccomp: a jump too far at ${i}`);
    buf.writeUInt16LE(p.code, i * 8);
    buf.writeUInt8(jt, i * 8 + 2);
    buf.writeUInt8(jf, i * 8 + 3);
    buf.writeUInt32LE(p.k >>> 0, i * 8 + 4);
  });
  return buf;
}

/** Writes the filter into `dir` (the state dir's jail folder, or a scratch dir); its path, or null without one. */
export async function writeSeccomp(dir: string, arch: string = process.arch): Promise<string | null> {
  const filter = seccompFilter(arch);
  if (!filter) return null;
  await mkdir(dir, { recursive: true, mode: 0o711 });
  const file = join(dir, "seccomp.bpf");
  await replaceWith(file, (tmp) => writeFile(tmp, filter, { mode: 0o644, flag: "wx" }));
  return file;
}

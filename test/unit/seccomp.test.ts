// The jail's system-call filter, read back by a small classic-BPF interpreter (the kernel's semantics for
// the opcodes it uses): what each architecture's program answers, including arm64, which does not run here.
import { describe, expect, it } from "vitest";
import { SECCOMP_DENIED, seccompFilter } from "../../src/jail/seccomp.js";

const ALLOW = 0x7fff0000;
const errno = (e: number) => 0x00050000 | e;
const ARCH = { x64: 0xc000003e, arm64: 0xc00000b7, i386: 0x40000003 } as const;

/** Runs the program on one call: nr, arch and the low word of its first argument. */
function decide(prog: Buffer, call: { nr: number; arch: number; arg0?: number }): number {
  const data = (off: number) => (off === 0 ? call.nr : off === 4 ? call.arch : off === 16 ? (call.arg0 ?? 0) : Number.NaN);
  let acc = 0;
  for (let pc = 0; pc < prog.length / 8; ) {
    const code = prog.readUInt16LE(pc * 8);
    const jt = prog.readUInt8(pc * 8 + 2);
    const jf = prog.readUInt8(pc * 8 + 3);
    const k = prog.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) acc = data(k) >>> 0;
    else if (code === 0x06) return k;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x45) pc += (acc & k) !== 0 ? jt : jf;
    else throw new Error(`opcode ${code.toString(16)} at ${pc}`);
    pc += 1;
  }
  throw new Error("fell off the end");
}

describe.each([
  ["x64", { read: 0, write: 1, clone: 56, unshare: 272, clone3: 435, ptrace: 101 }],
  ["arm64", { read: 63, write: 64, clone: 220, unshare: 97, clone3: 435, ptrace: 117 }],
] as const)("the seccomp filter for %s", (arch, nr) => {
  const prog = seccompFilter(arch);
  if (!prog) throw new Error("no filter");
  const own = ARCH[arch];

  it("lets ordinary calls through, and clone/unshare without a user namespace", () => {
    expect(decide(prog, { nr: nr.read, arch: own })).toBe(ALLOW);
    expect(decide(prog, { nr: nr.write, arch: own })).toBe(ALLOW);
    expect(decide(prog, { nr: nr.clone, arch: own, arg0: 0x01200011 })).toBe(ALLOW); // fork's flags
    expect(decide(prog, { nr: nr.unshare, arch: own, arg0: 0x00020000 })).toBe(ALLOW); // CLONE_NEWNS
  });

  it("refuses ptrace and every listed call, a new user namespace, and clone3 (ENOSYS: the C library falls back)", () => {
    expect(decide(prog, { nr: nr.ptrace, arch: own })).toBe(errno(1));
    for (const [name, nrs] of Object.entries(SECCOMP_DENIED)) {
      const n = nrs[arch === "x64" ? 0 : 1];
      if (n >= 0) expect(decide(prog, { nr: n, arch: own }), name).toBe(errno(1));
    }
    expect(decide(prog, { nr: nr.clone, arch: own, arg0: 0x10000000 | 0x11 })).toBe(errno(1));
    expect(decide(prog, { nr: nr.unshare, arch: own, arg0: 0x10000000 })).toBe(errno(1));
    expect(decide(prog, { nr: nr.clone3, arch: own })).toBe(errno(38));
  });

  it("refuses another ABI whole (32-bit x86, x32), where the numbers mean other calls", () => {
    expect(decide(prog, { nr: 26, arch: ARCH.i386 })).toBe(errno(1));
    expect(decide(prog, { nr: nr.read, arch: arch === "x64" ? ARCH.arm64 : ARCH.x64 })).toBe(errno(1));
    if (arch === "x64") expect(decide(prog, { nr: 0x40000000 + 101, arch: own })).toBe(errno(1));
  });
});

it("has no filter for an architecture it has no table for (the jail says so)", () => {
  expect(seccompFilter("riscv64")).toBeNull();
});

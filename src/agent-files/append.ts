// A file the bridge writes for the agent to read while it runs (the command agent's note inbox): made
// by the bridge before the agent starts — O_CREAT|O_EXCL|O_NOFOLLOW, 0600 — and from then on written
// only through the descriptor the bridge holds, never opened by path again. Whatever the agent puts at
// that path later (a link to a host file, a FIFO) is never followed or opened: the worst it can do is
// hide the notes from itself. Appends are asynchronous (the event loop never waits on them).
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { SandboxRefused } from "./files.js";

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_APPEND;

export class AppendOnlyFile {
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
  ) {}

  /** Creates the file (it must not exist yet: the run dir is fresh). */
  static async create(path: string): Promise<AppendOnlyFile> {
    try {
      return new AppendOnlyFile(path, await open(path, CREATE, 0o600));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new SandboxRefused(
        path,
        code === "EEXIST" ? "already exists (the run dir must be fresh)" : `cannot be created (${code ?? (err as Error).message})`,
      );
    }
  }

  /** Appends through the held descriptor, in order; resolves once written. */
  append(text: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    const step = this.chain.then(async () => {
      await this.fh.write(text);
    });
    this.chain = step.catch(() => undefined);
    return step;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.chain;
    await this.fh.close().catch(() => undefined);
  }
}

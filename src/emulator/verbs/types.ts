import type { ParserSpec, Values } from "../argparse.js";
import type { Ctx } from "../io.js";
import type { BoardLoc, Db } from "../store.js";

export interface VerbCtx extends Ctx {
  loc: BoardLoc;
  db: Db;
  now: number;
}

export interface Verb {
  spec: ParserSpec;
  run(ctx: VerbCtx, v: Values): void | Promise<void>;
}

export function str(v: Values, k: string): string | null {
  const x = v[k];
  return typeof x === "string" ? x : null;
}

export function num(v: Values, k: string): number | null {
  const x = v[k];
  return typeof x === "number" ? x : null;
}

export function list(v: Values, k: string): string[] {
  const x = v[k];
  return Array.isArray(x) ? x : [];
}

export function prog(verb: string): string {
  return `hermes kanban ${verb}`;
}

/** BEGIN IMMEDIATE: writers queue on the SQLite lock exactly like concurrent Hermes processes. */
export function tx<T>(ctx: VerbCtx, fn: () => T): T {
  return ctx.db.transaction(fn).immediate();
}

// Metadata that must fit one argv element (the CLI's `--metadata`, hermes.textCapBytes): when it does
// not, the largest pieces are cut — the longest text first, then the longest list — each with a visible
// marker, and the top level says it was trimmed. Deterministic; the shape (keys, types) is kept, so the
// close still carries the common result; only if nothing else helps does it fall back to the result's
// core fields.
import { capText } from "./text.js";

type Json = unknown;

export const TRIM_NOTE_KEY = "trimmed_by_bridge";

const size = (v: Json) => Buffer.byteLength(JSON.stringify(v), "utf8");

interface Leaf {
  get(): Json;
  set(v: Json): void;
}

/** Every string and array of the value, with a way to replace it in place. */
function leaves(root: Record<string, Json>): Leaf[] {
  const out: Leaf[] = [];
  const walk = (holder: Record<string, Json> | Json[], key: string | number) => {
    const v = (holder as Record<string | number, Json>)[key];
    const leaf: Leaf = { get: () => (holder as Record<string | number, Json>)[key], set: (x) => ((holder as Record<string | number, Json>)[key] = x) };
    if (typeof v === "string") out.push(leaf);
    else if (Array.isArray(v)) {
      out.push(leaf);
      for (let i = 0; i < v.length; i += 1) walk(v, i);
    } else if (v && typeof v === "object") for (const k of Object.keys(v)) walk(v as Record<string, Json>, k);
  };
  for (const k of Object.keys(root)) walk(root, k);
  return out;
}

function shrinkOnce(value: Record<string, Json>): boolean {
  const all = leaves(value);
  const texts = all.filter((l) => typeof l.get() === "string" && (l.get() as string).length > 400);
  const lists = all.filter((l) => Array.isArray(l.get()) && (l.get() as Json[]).length > 4);
  const biggest = [...texts, ...lists].sort((a, b) => size(b.get()) - size(a.get()))[0];
  if (!biggest) return false;
  const v = biggest.get();
  if (typeof v === "string") biggest.set(capText(v, Math.max(300, Math.floor(Buffer.byteLength(v) / 2))));
  else if (Array.isArray(v)) {
    const keep = Math.max(2, Math.floor(v.length / 2));
    biggest.set([...v.slice(0, keep), `[… ${v.length - keep} more items not shown: trimmed by hermes-kanban-bridge]`]);
  }
  return true;
}

/** `metadata` as it fits `maxBytes` of JSON (unchanged when it already does). */
export function fitMetadata(metadata: Record<string, Json>, maxBytes: number): Record<string, Json> {
  if (size(metadata) <= maxBytes) return metadata;
  const note = `metadata was ${size(metadata)} bytes, over the CLI's cap of ${maxBytes}: its largest parts were trimmed`;
  const copy = { ...(structuredClone(metadata) as Record<string, Json>), [TRIM_NOTE_KEY]: note };
  for (let i = 0; i < 200 && size(copy) > maxBytes; i += 1) if (!shrinkOnce(copy)) break;
  if (size(copy) <= maxBytes) return copy;
  const core: Record<string, Json> = { [TRIM_NOTE_KEY]: `${note}; only the result's core fields are kept` };
  for (const k of ["ok", "status", "items", "note", "error", "bridge"]) if (k in metadata) core[k] = metadata[k];
  for (let i = 0; i < 200 && size(core) > maxBytes; i += 1) if (!shrinkOnce(core)) break;
  return size(core) <= maxBytes ? core : { [TRIM_NOTE_KEY]: core[TRIM_NOTE_KEY], ok: metadata.ok, status: metadata.status };
}

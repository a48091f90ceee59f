// Text that leaves the bridge is made safe for where it goes: an argv element (no NUL — the kernel
// cannot carry it, Node refuses it —, no other control characters, capped), or a terminal (no escape
// sequences from task or agent text). One odd byte must never fail a close or paint a terminal.

/** C0 controls but \t and \n, DEL, and C1 controls (U+0080–U+009F, e.g. CSI). NUL included. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** Lone surrogates (not valid UTF-16: Node would turn them into U+FFFD silently). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const hex = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;

/** Escapes control characters as visible `\xNN` (NUL → `\x00`) and lone surrogates as U+FFFD. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, hex).replace(LONE_SURROGATE, "\ufffd");
}

/** For terminal output (`outbox list`, `status`): one line, controls escaped, newlines shown as ⏎. */
export function termSafe(text: string, max = 200): string {
  const s = escapeControls(text).replace(/\r?\n/g, " ⏎ ").replace(/\t/g, " ");
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

export const TRUNCATION_MARKER = "\n\n[… truncated by hermes-kanban-bridge: {n} more characters not shown]";

/** Caps text so no single argv element can approach the 128 KiB MAX_ARG_STRLEN. */
export function capText(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, "utf8") <= maxBytes) return text;
  // Leave room for the marker; cut on a code point boundary.
  const budget = Math.max(0, maxBytes - 200);
  let cut = Math.min(text.length, budget);
  while (cut > 0 && Buffer.byteLength(text.slice(0, cut), "utf8") > budget) cut = Math.floor(cut * 0.9);
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return text.slice(0, cut) + TRUNCATION_MARKER.replace("{n}", String(text.length - cut));
}

/** A free-text argv element: controls escaped, then capped. */
export function argvText(text: string, maxBytes: number): string {
  return capText(escapeControls(text), maxBytes);
}

/** Every string of a JSON-like value (keys included) with controls escaped: metadata posted to the board. */
export function escapeControlsDeep<T>(value: T): T {
  if (typeof value === "string") return escapeControls(value) as T;
  if (Array.isArray(value)) return value.map((v) => escapeControlsDeep(v)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[escapeControls(k)] = escapeControlsDeep(v);
    return out as T;
  }
  return value;
}

/** Characters that show nothing (zero-width, bidirectional controls, tag characters, variation selectors…). */
const INVISIBLE =
  /\u00AD|\u034F|\u061C|\u115F|\u1160|\u17B4|\u17B5|[\u180B-\u180F]|[\u200B-\u200F]|[\u202A-\u202E]|[\u2060-\u2064]|[\u2066-\u206F]|\u3164|[\uFE00-\uFE0F]|\uFEFF|\uFFA0|\uDB40[\uDC00-\uDDEF]/g;

/**
 * Task text with nothing hidden in it: an HTML comment (which a rendered card does not show, but an agent
 * reads) becomes `[hidden HTML comment: …]`, and every invisible or bidirectional character is written out
 * as `⟦U+200B⟧` — what a person sees on the card is what the agent reads, and what it reads is marked.
 */
export function defuseHidden(text: string): string {
  return text
    .replace(/<!--([\s\S]*?)(-->|$)/g, (_m, inner: string) => `[hidden HTML comment: ${inner.trim()}]`)
    .replace(INVISIBLE, (ch) => `⟦U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}⟧`);
}

// Usage-limit texts: "You've hit your session limit · resets 4:25am (UTC)", the weekly form with a
// date, and the old "Claude AI usage limit reached|<epoch seconds>". Pure; `now` injected.

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

export function parseLimitText(text: string, now: number): { kind: string; resetsAt: number | null } | null {
  const legacy = /Claude AI usage limit reached\|(\d{9,})/.exec(text);
  if (legacy) return { kind: "usage", resetsAt: Number(legacy[1]) * 1000 };
  const m = /You(?:'|’)ve hit your ([^·]+?)\s*(?:·\s*resets\s+(.+))?$/i.exec(text.trim());
  if (!m) return null;
  const kind = (m[1] ?? "limit").trim().replace(/\s+/g, "_").toLowerCase();
  return { kind, resetsAt: m[2] ? parseResetTime(m[2], now) : null };
}

/** "4:25am (UTC)" (next occurrence) or "Dec 2, 3:25am (UTC)". Only UTC is interpreted (the bridge sets TZ=UTC). */
export function parseResetTime(s: string, now: number): number | null {
  const m = /^(?:([A-Za-z]{3})\w*\s+(\d{1,2}),\s*)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)\s*\((UTC|GMT)\)/i.exec(s.trim());
  if (!m) return null;
  let hour = Number(m[3]) % 12;
  if ((m[5] ?? "").toLowerCase() === "pm") hour += 12;
  const minute = Number(m[4] ?? 0);
  const base = new Date(now);
  if (m[1] && m[2]) {
    const month = MONTHS.indexOf(m[1].toLowerCase());
    if (month < 0) return null;
    let t = Date.UTC(base.getUTCFullYear(), month, Number(m[2]), hour, minute);
    if (t < now - 86_400_000) t = Date.UTC(base.getUTCFullYear() + 1, month, Number(m[2]), hour, minute);
    return t;
  }
  let t = Date.UTC(base.getUTCFullYear(), base.getUTCMonth(), base.getUTCDate(), hour, minute);
  if (t <= now) t += 86_400_000;
  return t;
}

// pino: JSON lines to stdout, or pino-pretty for humans at a TTY. With `redact`, every string a log
// line carries (the message and each field, however deep) passes it: log lines echo agent text
// (progress notes, limit messages, errors) and must not carry a secret any more than the board may.
import pino, { type Logger } from "pino";

export type { Logger };

export interface LoggerOptions {
  level: string;
  format: "auto" | "json" | "pretty";
  destination?: NodeJS.WritableStream;
  redact?: (text: string) => string;
}

function deep(v: unknown, r: (t: string) => string, depth = 0): unknown {
  if (typeof v === "string") return r(v);
  if (depth > 6 || v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map((x) => deep(x, r, depth + 1));
  if (v instanceof Error) return r(v.message);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deep(x, r, depth + 1)]));
}

export function createLogger(o: LoggerOptions): Logger {
  const r = o.redact;
  const redacting: pino.LoggerOptions = r
    ? {
        formatters: { log: (obj) => deep(obj, r) as Record<string, unknown> },
        hooks: {
          logMethod(args, method) {
            method.apply(this, args.map((a) => (typeof a === "string" ? r(a) : a)) as Parameters<typeof method>);
          },
        },
      }
    : {};
  const pretty = o.format === "pretty" || (o.format === "auto" && process.stdout.isTTY === true && !o.destination);
  if (pretty) {
    return pino({ level: o.level, ...redacting, transport: { target: "pino-pretty", options: { colorize: true, translateTime: "SYS:HH:MM:ss" } } });
  }
  return pino({ level: o.level, base: { pid: process.pid }, ...redacting }, (o.destination as pino.DestinationStream | undefined) ?? pino.destination(1));
}

export const silentLogger: Logger = pino({ level: "silent" });

// pino: JSON lines to stdout, or pino-pretty for humans at a TTY.
import pino, { type Logger } from "pino";

export type { Logger };

export function createLogger(o: { level: string; format: "auto" | "json" | "pretty"; destination?: NodeJS.WritableStream }): Logger {
  const pretty = o.format === "pretty" || (o.format === "auto" && process.stdout.isTTY === true && !o.destination);
  if (pretty) {
    return pino({ level: o.level, transport: { target: "pino-pretty", options: { colorize: true, translateTime: "SYS:HH:MM:ss" } } });
  }
  return pino({ level: o.level, base: { pid: process.pid } }, (o.destination as pino.DestinationStream | undefined) ?? pino.destination(1));
}

export const silentLogger: Logger = pino({ level: "silent" });

// Ready → claimed latency, from the board's own events (the last ready-making event before the claim).
import type { TaskDetail } from "../board/port.js";

export function pickupLatencySeconds(detail: TaskDetail, claimedAtMs: number): number | null {
  const claimedIdx = detail.events.map((e) => e.kind).lastIndexOf("claimed");
  const before = claimedIdx === -1 ? detail.events : detail.events.slice(0, claimedIdx);
  const ready = [...before].reverse().find((e) => e.readyMaking);
  if (!ready) return null;
  return Math.max(0, claimedAtMs / 1000 - ready.createdAt);
}

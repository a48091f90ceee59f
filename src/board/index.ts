export * from "./port.js";
export * from "../errors/board.js";
export { HermesCliBoard, type HermesCliBoardOptions, type CliCallRecord } from "./hermes-cli-board.js";
export { buildArgv } from "./argv.js";
export { buildCliEnv, type CliEnvOptions } from "./env.js";
export { maxRuntimeFromContext } from "./parse.js";
export { type BoardEventKind, boardEventKind } from "./events.js";
export { DEFAULT_RETRY, type RetryPolicy } from "./retry.js";
export { defaultShareDir, hubDir } from "./hub-client.js";

export * from "./port.js";
export * from "./errors.js";
export { HermesCliBoard, leaseFrom, type HermesCliBoardOptions, type CliCallRecord } from "./hermes-cli-board.js";
export { judge } from "./lease-resolver.js";
export { buildArgv, capText, TRUNCATION_MARKER } from "./argv.js";
export { buildCliEnv, type CliEnvOptions } from "./env.js";
export { parseShow, parseTaskList, parseWatchLine, parseClaim, openRun } from "./parse.js";
export { DEFAULT_RETRY, type RetryPolicy } from "./retry.js";

export * from "./port.js";
export * from "./errors.js";
export { HermesCliBoard, type HermesCliBoardOptions, type CliCallRecord } from "./hermes-cli-board.js";
export { buildArgv, capText, splitCommand, TRUNCATION_MARKER } from "./argv.js";
export { buildCliEnv, type CliEnvOptions } from "./env.js";
export { parseShow, parseTaskList, parseWatchLine, parseClaim, openRun } from "./parse.js";
export { DEFAULT_RETRY, type RetryPolicy } from "./retry.js";

export * from "./schema.js";
export * from "./load.js";
export { splitCommand } from "./command.js";

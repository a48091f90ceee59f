export * from "./clock.js";

// Loaded into every Node process that holds an agent CLI's stream (NODE_OPTIONS=--import, jail.ts), and
// imported by the bridge's own Node programs in a jail (the relay, the task-tools server): a Node process
// that receives SIGUSR1 opens its debugger on 127.0.0.1:9229, with no password — and every process of a
// jail is one uid, so any of them could signal the CLI and run code in it (write lines "of the CLI").
// With a listener of its own, SIGUSR1 does nothing (Node starts the debugger only where nobody listens).
// A file of its own, using nothing but Node (Node 22.14+ has --disable-sigusr1; this works on 20).
process.on("SIGUSR1", () => undefined);

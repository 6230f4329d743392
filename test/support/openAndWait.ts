/**
 * Run as its own Node process (processes.ts, openInChild): opens a client, prints the browser's pid
 * and profile, then waits to be told how to end (signal, or "exit" on stdin).
 */
import { Client } from "../../lib/index.js";
import { userDataDirOf } from "./clients.js";

const client = new Client({ env: "LOCAL", disablePino: true, verbose: 0 });
await client.init();
const pid = client.browserPid!;
process.stdout.write(`${JSON.stringify({ pid, profile: userDataDirOf(pid) })}\n`);
process.stdin.on("data", (d) => {
  if (d.toString().trim() === "exit") process.exit(0);
});

import { z } from "zod";
import { sleep } from "../../timeout.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "wait",
  description: "Wait for the page: something loading, a message to appear.",
  inputSchema: z.object({
    seconds: z.number().positive().max(30).describe("At most 30"),
  }),
  async execute({ seconds }, run, deadline) {
    // The tool's own time limit bounds the wait, and the caller's stop ends it: nothing to undo.
    const ms = Math.min(seconds * 1000, deadline.remaining());
    const started = Date.now();
    await sleep(ms, run.stop ? AbortSignal.any([deadline.signal, run.stop]) : deadline.signal);
    const waited = Date.now() - started;
    return {
      text: `Waited ${waited} ms`,
      action: { action: `wait ${seconds} s` },
      replay: [{ tool: "wait", input: { seconds } }],
    };
  },
});

import { z } from "zod";
import { sleep } from "../../timeout.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "wait",
  description: "Wait a moment for the page: something loading, an animation, a message to appear.",
  inputSchema: z.object({
    seconds: z.number().positive().max(30).describe("How long to wait, in seconds (at most 30)"),
  }),
  async execute({ seconds }, _run, deadline) {
    // The tool's own time limit bounds the wait too.
    const ms = Math.min(seconds * 1000, deadline.remaining());
    await sleep(ms, deadline.signal);
    return { text: `Waited ${Math.round(ms)} ms`, action: { action: `wait ${seconds} s` } };
  },
});

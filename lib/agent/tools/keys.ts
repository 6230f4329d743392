import { z } from "zod";
import { noteAction } from "../../browser/actionNotes.js";
import { focusedIdentity } from "../../browser/elementIdentity.js";
import { hideIdentity } from "../../variables.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "keys",
  description: "Press keys on what has the focus: Enter, Escape, Tab, chords like Control+A.",
  unreplayableOnError: true,
  inputSchema: z.object({
    keys: z.array(z.string().min(1)).min(1).max(50).describe('In order: ["Control+A", "Delete"]'),
  }),
  async execute({ keys }, run, deadline) {
    const page = run.page().playwrightPage;
    // Keys go to whatever has the focus: a replay presses them only where they went.
    // Not knowable (the page between documents): the keys still go, the run is not replayable.
    const focus = run.recording
      ? await focusedIdentity(page).then(
          (seen) => hideIdentity(seen, run.variables),
          () => undefined,
        )
      : undefined;
    const pressed: string[] = [];
    for (const key of keys) {
      if (deadline.signal.aborted) break;
      await page.keyboard.press(key);
      pressed.push(key);
    }
    // What the keys' own handlers changed is their result, not a page still moving.
    if (pressed.length) noteAction(page);
    await run.newTabs.settled(Math.min(2_000, deadline.remaining()));
    const now = run.page().playwrightPage;
    const step =
      focus === undefined ? null : [{ tool: "keys" as const, input: { keys: pressed }, focus }];
    return {
      text: `Pressed ${keys.join(", ")}`,
      action: { action: `press ${keys.join(" ")}`, pageUrl: now.url() },
      replay: run.recording ? (pressed.length ? step : []) : undefined,
    };
  },
});

import { z } from "zod";
import type { Context } from "../../browser/context.js";
import type { Page } from "../../browser/page.js";
import { textAnswer } from "../results.js";
import type { McpTool } from "./index.js";

const inputSchema = z
  .object({
    action: z
      .enum(["list", "switch", "close"])
      .default("list")
      .describe("list the tabs, switch to one, or close one"),
    index: z
      .number()
      .int()
      .min(1)
      .max(1_000)
      .optional()
      .describe("switch, close: the tab's number in the list (1 = the first)"),
  })
  .refine((input) => input.action === "list" || input.index !== undefined, {
    error: "switch and close need the tab's index",
    path: ["index"],
  });

/** A page's title, bounded: a tab whose renderer hangs must not hold the list. */
async function titleOf(page: Page): Promise<string> {
  const title = page.playwrightPage.title().catch(() => "");
  const timeout = new Promise<string>((resolve) => setTimeout(() => resolve(""), 1_000).unref());
  return Promise.race([title, timeout]);
}

async function list(context: Context, head: string): Promise<string> {
  const active = context.activePage();
  const lines = await Promise.all(
    context.pages().map(async (page, i) => {
      const title = await titleOf(page);
      return `${i + 1}. ${title ? `${title} — ` : ""}${page.url()}${page === active ? " (current)" : ""}`;
    }),
  );
  return `${head}\n${lines.join("\n")}`;
}

function tabAt(context: Context, index: number): Page {
  const pages = context.pages();
  const page = pages[index - 1];
  if (!page) {
    throw new Error(
      `there is no tab ${index}: ${pages.length === 1 ? "there is one tab" : `there are ${pages.length} tabs`} (list them with tabs)`,
    );
  }
  return page;
}

export default {
  name: "tabs",
  title: "Tabs",
  description:
    "List the browser's tabs, switch to one (the tools then work on it), or close one. A tab a click opened becomes the current one by itself.",
  inputSchema,
  needsModel: false,
  annotations: { openWorldHint: true },
  async handle({ action, index }, call) {
    const output = await call.onRun(async () => {
      const { context } = call.browser;
      if (action === "list") return { text: await list(context, "Tabs:") };
      const page = tabAt(context, index!);
      if (action === "switch") {
        context.setActivePage(page);
        await page.playwrightPage.bringToFront().catch(() => {});
      } else {
        if (context.pages().length === 1) {
          throw new Error("that is the only tab: open another URL in it instead of closing it");
        }
        await page.close();
      }
      // The ids read so far were another tab's (or this closed one's).
      call.forgetOutline();
      const done = action === "switch" ? `Switched to tab ${index}.` : `Closed tab ${index}.`;
      return { text: await list(context, `${done} Read the page for its ids. Tabs now:`) };
    });
    return textAnswer(output.text);
  },
} satisfies McpTool<typeof inputSchema>;

/**
 * What the dashboard tells of each operation, in a real browser: what it was asked (variables
 * as their %name%, never their values), what it answered (a long answer cut, saying so) or why
 * it failed, an agent's steps (tool, the model's reasoning, outcome), the picture full size on a
 * click, and a log line said again and again as one line with its count. No key, no variable's
 * value, no model key in anything the view token opens.
 */
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { startOwnBrowser } from "../support/browserProcess.js";
import { idOfLine, promptOf, useModelServer } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { shopModel } from "../support/llm/shopModel.js";
import { teaAgent, teaExecutionModel } from "../support/llm/teaAgent.js";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const service = useService();

const MODEL_KEY = "sk-dashboard-operations-key-123456";
const TYPED = "grace.hopper.private@example.test";

/** A browser of the test's own for the viewer's pages, stopped when `look` is done. */
async function withViewer(look: (page: Page) => Promise<void>): Promise<void> {
  const viewer = await startOwnBrowser();
  const browser: Browser = await chromium.connectOverCDP(viewer.wsEndpoint);
  try {
    const page = await browser.contexts()[0]!.newPage();
    await look(page);
  } finally {
    await browser.close();
    await viewer.stop();
  }
}

async function started(verbose: 0 | 1 | 2) {
  const answer = await service.call("POST", "/v1/sessions/start", {
    body: { modelName: "openai/gpt-4.1-mini", verbose },
    headers: { "x-model-api-key": MODEL_KEY },
  });
  const { sessionId: id, sessionUrl } = answer.body.data as {
    sessionId: string;
    sessionUrl: string;
  };
  const call = (path: string, body: unknown) =>
    service.call("POST", `/v1/sessions/${id}/${path}`, { body });
  const state = async () => {
    const token = new URL(sessionUrl).hash.replace("#token=", "");
    const answered = await fetch(`${service.url}/dashboard/${id}/state`, {
      headers: { "x-wf-view-token": token },
    });
    return answered.text();
  };
  return { id, sessionUrl, call, state, end: () => call("end", {}) };
}

/** The dashboard's operations, once `count` are listed; each opens to what it was about. */
async function operations(page: Page, count: number): Promise<Locator> {
  const ops = page.locator("#operations > li");
  await expect.poll(() => ops.count(), { timeout: 15_000 }).toBe(count);
  return ops;
}

async function opened(op: Locator): Promise<string> {
  await op.locator("summary").click();
  return (await op.locator(".body").textContent()) ?? "";
}

describe("the dashboard's operations", () => {
  it("shows what each was asked and answered, or why it failed, without values or keys", async () => {
    // act types the caller's variable into the Email field, by its %name% only.
    model.use(
      openaiResponses((request) => {
        const id = idOfLine(promptOf(request), 'textbox "Email"');
        return {
          elements: [
            {
              elementId: id,
              description: "the Email field",
              method: "fill",
              arguments: ["%email%"],
            },
          ],
        };
      }),
    );
    const s = await started(2);
    try {
      await s.call("navigate", { url: server.url("outline/form.html") });
      const acted = await s.call("act", {
        input: "type %email% into the Email field",
        options: { variables: { email: TYPED } },
      });
      expect(acted.body.data.result.success).toBe(true);
      await s.call("extract", {});
      // An address that carries the typed value, as a submitted form's would.
      const carrying = server.url(`outline/shop.html?email=${encodeURIComponent(TYPED)}`);
      await s.call("navigate", { url: carrying });
      await s.call("navigate", { url: server.url("outline/huge.html") });
      const huge = await s.call("extract", {});
      expect(JSON.stringify(huge.body.data.result).length).toBeGreaterThan(5_000);
      const refused = await s.call("navigate", { url: "http://169.254.169.254/latest/" });
      expect(refused.status).toBe(400);

      // Nothing the view token opens holds the value, the model key or the API key.
      const state = await s.state();
      expect(state).toContain("%email%");
      for (const secret of [TYPED, MODEL_KEY, KEYS.alpha]) expect(state).not.toContain(secret);

      await withViewer(async (page) => {
        await page.goto(s.sessionUrl);
        const ops = await operations(page, 7);
        const summary = (i: number, part: string) =>
          ops.nth(i).locator(`summary .${part}`).textContent();
        expect(await summary(0, "asked")).toBe(server.url("outline/form.html"));
        expect(await summary(1, "asked")).toBe("type %email% into the Email field");

        const act = await opened(ops.nth(1));
        expect(act).toContain("Askedtype %email% into the Email field");
        expect(act).toContain("Server cachemiss");
        expect(act).toMatch(/Answered\{\s*"success": true/);
        expect(act).toContain('"arguments": [\n        "%email%"');

        const read = await opened(ops.nth(2));
        expect(read).toContain("Askedthe page's text (no instruction)");
        expect(read).toContain('textbox \\"Email\\" value=\\"%email%\\"');
        expect(await summary(3, "asked")).toBe(server.url("outline/shop.html?email=%email%"));

        // A long answer is cut, and says how long it was; the caller got it whole.
        const long = await opened(ops.nth(5));
        expect(long).toMatch(/… cut here: [\d,]+ characters in all$/);

        const failed = ops.nth(6);
        expect(await failed.locator("summary .outcome").textContent()).toBe("failed");
        expect(await opened(failed)).toMatch(
          /^Askedhttp:\/\/169\.254\.169\.254\/latest\/FailedRefused to navigate to http:\/\/169\.254\.169\.254\/latest\/: .+/,
        );
        const shown = (await page.locator("body").textContent()) ?? "";
        for (const secret of [TYPED, MODEL_KEY, KEYS.alpha]) expect(shown).not.toContain(secret);
      });
    } finally {
      await s.end();
    }
  });

  it("shows an agent's steps: tool, the model's reasoning, outcome", async () => {
    model.use(teaAgent(), teaExecutionModel());
    const s = await started(1);
    try {
      await s.call("navigate", { url: server.url("agent/search.html") });
      // A JSON answer, no stream: the dashboard hears the run's steps all the same.
      const run = await s.call("agentExecute", {
        agentConfig: { model: "openai/gpt-4.1-mini" },
        executeOptions: { instruction: "Find the price of oolong tea" },
      });
      expect(run.body.data.result.message).toBe("The price is $6.40");

      await withViewer(async (page) => {
        await page.goto(s.sessionUrl);
        const ops = await operations(page, 2);
        const agent = ops.nth(1);
        expect(await agent.locator("summary .method").textContent()).toBe("agentExecute");
        const body = await opened(agent);
        expect(body).toContain("AskedFind the price of oolong tea");
        expect(body).toMatch(
          /Answered\{\s*"success": true,\s*"completed": true,\s*"message": "The price is \$6\.40"/,
        );
        const steps = agent.locator(".steps > li");
        const tools = await steps.locator(".tool").allTextContents();
        expect(tools).toEqual(["outline", "act", "act", "outline", "act", "extract", "done"]);
        expect(await steps.nth(1).locator(".input").textContent()).toContain(
          "type oolong into the search field",
        );
        expect(await steps.nth(5).locator(".outcome").textContent()).toContain("$6.40");
        // What the model said before its last call, with that call.
        expect(await steps.nth(6).locator(".reasoning").textContent()).toBe("I have the price.");
        expect(await steps.locator(".outcome.failed").count()).toBe(0);
      });
    } finally {
      await s.end();
    }
  });

  it("opens the picture full size, and folds a line said again and again", async () => {
    model.use(shopModel());
    const s = await started(2);
    try {
      await s.call("navigate", { url: server.url("outline/shop.html") });
      // Each extract without an instruction captures the page once, and says so at verbose 2.
      for (let i = 0; i < 4; i++) await s.call("extract", {});

      await withViewer(async (page) => {
        await page.goto(s.sessionUrl);
        await operations(page, 5);
        const captured = page.locator("#log .line", { hasText: "[snapshot] captured" });
        await expect.poll(() => captured.count(), { timeout: 10_000 }).toBe(1);
        expect(await captured.locator(".times").textContent()).toBe("×4");

        const picture = page.locator("#picture");
        await page.waitForFunction(
          () => (document.getElementById("picture") as HTMLImageElement).naturalWidth > 0,
        );
        await picture.click();
        const enlarged = page.locator("#enlarged img");
        await expect.poll(() => page.locator("#enlarged").isVisible()).toBe(true);
        await page.waitForFunction(
          () => (document.querySelector("#enlarged img") as HTMLImageElement).naturalWidth > 0,
        );
        const sizes = await enlarged.evaluate((img: HTMLImageElement) => ({
          natural: img.naturalWidth,
          shown: img.clientWidth,
          small: (document.getElementById("picture") as HTMLImageElement).clientWidth,
        }));
        // Full size: every pixel the picture has, more than the page's column shows.
        expect(sizes.shown).toBe(sizes.natural);
        expect(sizes.natural).toBeGreaterThan(sizes.small);
        await page.keyboard.press("Escape");
        await expect.poll(() => page.locator("#enlarged").isVisible()).toBe(false);
      });
    } finally {
      await s.end();
    }
  });
});

import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import type { LogLine } from "../../lib/index.js";
import { ENGINE, useClients } from "../support/clients.js";
import { anthropicAgent, call, openaiAgent, readAgentTurn } from "../support/llm/agentModel.js";
import { ANTHROPIC_USAGE, anthropicMessages } from "../support/llm/anthropic.js";
import { idOfLine, promptOf, useModelServer } from "../support/llm/modelServer.js";
import { clickingLine, OPENAI_USAGE, openaiResponses } from "../support/llm/openai.js";
import { signupAgent, signupExecutionModel } from "../support/llm/signupAgent.js";
import {
  teaAgent,
  teaAgentStep,
  teaExecutionAnswer,
  teaExecutionModel,
} from "../support/llm/teaAgent.js";
import { latestImageIn } from "../support/png.js";
import { freePort } from "../support/ports.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const clients = useClients();
const KEY = "sk-agent-test-key-123456";

const open = (file: string, options: Record<string, unknown> = {}) =>
  clients.openOn(server.url(file), {
    model: { modelName: "openai/gpt-4.1-mini", apiKey: KEY },
    ...options,
  });

describe("agent (dom mode)", () => {
  it("does a three-page task: searches, opens a result and reads a value from it", async () => {
    model.use(teaAgent(), teaExecutionModel());
    const lines: LogLine[] = [];
    const client = await open("agent/search.html", { logger: (l: LogLine) => lines.push(l) });
    const result = await client.agent().execute("Find the price of oolong tea");

    expect(result).toMatchObject({
      success: true,
      completed: true,
      message: "The price is $6.40",
    });
    expect(result.actions.map((a) => a.type)).toEqual([
      "outline",
      "act",
      "act",
      "outline",
      "act",
      "extract",
      "done",
    ]);
    const page = client.context.activePage()!;
    expect(page.url()).toBe(server.url("agent/item.html?id=oolong"));
    // Each step says what it did, where, and how long it took.
    for (const a of result.actions) expect(a.timeMs).toBeGreaterThanOrEqual(0);
    expect(result.actions[0]).toMatchObject({ pageUrl: server.url("agent/search.html") });
    expect(result.actions[0]!.pageText).toContain("Find a tea");
    expect(result.actions[1]).toMatchObject({
      instruction: "type oolong into the search field",
      success: true,
    });
    expect(result.actions[5]).toMatchObject({ extraction: "$6.40" });
    expect(result.actions[6]).toMatchObject({
      taskCompleted: true,
      reasoning: "I have the price.",
    });

    // The outline tool's answer names the page by its outline's title line.
    const outlines = model
      .requestsTo("/responses")
      .map((r) => readAgentTurn(r))
      .flatMap((turn) => turn.history.filter((use) => use.name === "outline"))
      .map((use) => use.output ?? "");
    expect(outlines[0]).toMatch(
      new RegExp(`^URL: ${server.url("agent/search.html")}\\ndocument "Tea search"\\n`),
    );
    expect(outlines.join("\n")).not.toContain("Title:");

    // 7 agent steps + 3 act calls + 1 extract call, all counted under agent.
    const calls = model.requestsTo("/responses").length;
    expect(calls).toBe(11);
    const metrics = await client.metrics;
    expect(metrics.agentPromptTokens).toBe(calls * OPENAI_USAGE.input);
    expect(metrics.actPromptTokens + metrics.extractPromptTokens).toBe(0);
    expect(result.usage).toMatchObject({
      input_tokens: calls * OPENAI_USAGE.input,
      output_tokens: calls * OPENAI_USAGE.output,
      cached_input_tokens: calls * OPENAI_USAGE.cached,
    });
    // The agent's steps are its actions, not history entries.
    expect((await client.history).filter((h) => h.method !== "navigate")).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain(KEY);
  });
});

describe("agent with another provider", () => {
  it("runs the same task through Anthropic's Messages API (tool_use / tool_result)", async () => {
    model.use(anthropicAgent(teaAgentStep), anthropicMessages(teaExecutionAnswer));
    const client = await clients.open({
      model: { modelName: "anthropic/claude-sonnet-4-5", apiKey: "sk-ant-agent-test-123456" },
    });
    await client.context.activePage()!.goto(server.url("agent/search.html"));
    const result = await client.agent().execute("Find the price of black tea");
    expect(result).toMatchObject({ success: true, message: "The price is $3.80" });
    const requests = model.requestsTo("api.anthropic.com");
    const steps = requests.filter((r) =>
      ((r.body.tools ?? []) as { name: string }[]).some((t) => t.name === "done"),
    );
    expect(steps).toHaveLength(7);
    // The tools are offered with the model free to choose; results go back as tool_result blocks.
    expect(steps[0]!.body.tool_choice).toMatchObject({ type: "auto" });
    expect(JSON.stringify(steps[1]!.body.messages)).toContain('"type":"tool_result"');
    // Every call counts once: the steps, and the tools' own calls (whose cache reads the AI SDK
    // adds to their input tokens).
    const toolCalls = requests.length - steps.length;
    expect(toolCalls).toBe(4);
    expect(result.usage!.input_tokens).toBe(
      steps.length * ANTHROPIC_USAGE.input +
        toolCalls * (ANTHROPIC_USAGE.input + ANTHROPIC_USAGE.cacheRead),
    );
  });
});

describe("agent: variables, limits and failures", () => {
  it("fills a form with a %secret% variable whose value never reaches a request, log or result", async () => {
    const SECRET = "correct-horse-battery-staple";
    model.use(signupAgent(), signupExecutionModel());
    const lines: LogLine[] = [];
    const client = await open("agent/signup.html", {
      logger: (l: LogLine) => lines.push(l),
      verbose: 2,
    });
    const result = await client.agent().execute({
      instruction: "Sign up with my email and password, name Ada",
      variables: {
        email: "ada@example.com",
        password: { value: SECRET, description: "the account password" },
      },
    });
    expect(result).toMatchObject({ success: true, completed: true });
    const page = client.context.activePage()!;
    expect(
      await page.evaluate(() => (window as unknown as { received: unknown }).received),
    ).toEqual({
      email: "ada@example.com",
      password: SECRET,
      name: "Ada",
    });
    // The model saw the names (and the description), never the values.
    const sent = JSON.stringify(model.requests().map((r) => r.body));
    expect(sent).toContain("%password%");
    expect(sent).toContain("the account password");
    expect(sent).not.toContain(SECRET);
    expect(sent).not.toContain("ada@example.com");
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(JSON.stringify(lines)).not.toContain(SECRET);
    expect(result.actions.find((a) => a.type === "fillForm")).toMatchObject({
      fields: [
        { field: "Name", value: "Ada" },
        { field: "Email", value: "%email%" },
        { field: "Password", value: "%password%" },
      ],
    });
    // A later outline of the client shows the typed value as its token.
    const { pageText } = await client.extract();
    expect(pageText).not.toContain(SECRET);
  });

  it("stops at maxSteps, not done, with the steps it took", async () => {
    model.use(openaiAgent(() => ({ calls: [call("think", { thought: "still looking" })] })));
    const client = await open("agent/search.html");
    const result = await client.agent().execute({ instruction: "Loop forever", maxSteps: 3 });
    expect(result).toMatchObject({
      success: false,
      completed: false,
      metadata: { steps: 3, stoppedBy: "maxSteps" },
    });
    expect(result.message).toContain("maxSteps (3)");
    // The last step offers only done: the think it asked for again is not run.
    expect(result.actions).toHaveLength(2);
    expect(result.actions[0]).toMatchObject({ type: "think", reasoning: "still looking" });
    const turns = model.requestsTo("/responses").map((r) => readAgentTurn(r));
    expect(turns).toHaveLength(3);
    expect(turns.map((t) => t.tools.length > 1)).toEqual([true, true, false]);
    expect(turns[2]!.tools).toEqual(["done"]);
    expect(JSON.stringify(turns[2]!.request.body)).toContain("This is the last step (maxSteps 3)");
  });

  it("bounds each tool call by toolTimeout and tells the model, which goes on", async () => {
    model.use(
      openaiAgent((turn) => {
        const last = turn.history.at(-1);
        if (!last) return { calls: [call("act", { action: "click the Search button" })] };
        return { calls: [call("done", { success: false, message: `act failed: ${last.output}` })] };
      }),
      // The tool's own model call hangs: only the tool's time limit ends it.
      http.post("https://api.openai.com/v1/responses", () => new Promise<never>(() => {})),
    );
    const client = await open("agent/search.html");
    const started = Date.now();
    const result = await client.agent().execute({ instruction: "Search", toolTimeout: 800 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ success: false, completed: true });
    expect(result.actions[0]).toMatchObject({ type: "act" });
    expect(String(result.actions[0]!.error)).toContain("800 ms");
    expect(result.message).toContain("800 ms");
  });

  it("hands a failing tool's error to the model, which recovers (navigation safety refuses file:)", async () => {
    model.use(
      openaiAgent((turn) => {
        const last = turn.history.at(-1);
        if (!last) return { calls: [call("goto", { url: "file:///etc/passwd" })] };
        if (last.name === "goto" && last.output?.includes("Refused")) {
          return { calls: [call("goto", { url: server.url("agent/item.html?id=green") })] };
        }
        if (last.name === "goto") return { calls: [call("outline")] };
        const price = last.output?.match(/\$\d+\.\d\d/)?.[0];
        return { calls: [call("done", { success: true, message: `Green tea: ${price}` })] };
      }),
    );
    const client = await open("agent/search.html");
    const result = await client.agent().execute("Find the price of green tea");
    expect(result).toMatchObject({ success: true, message: "Green tea: $4.20" });
    expect(result.actions[0]).toMatchObject({ type: "goto", url: "file:///etc/passwd" });
    expect(String(result.actions[0]!.error)).toContain("file: scheme is not allowed");
    expect(client.context.activePage()!.url()).toBe(server.url("agent/item.html?id=green"));
  });

  it("tells the model and the result in one readable line why goto failed (a closed port) and what to do", async () => {
    const url = `http://127.0.0.1:${await freePort()}/`;
    model.use(
      openaiAgent((turn) => {
        const last = turn.history.at(-1);
        if (!last) return { calls: [call("goto", { url })] };
        if (last.name === "goto" && turn.history.length === 1)
          return { calls: [call("keys", { keys: ["NoSuchKey"] })] };
        return {
          calls: [
            call("done", {
              success: false,
              message: turn.history.map((h) => h.output).join(" | "),
            }),
          ],
        };
      }),
    );
    const lines: LogLine[] = [];
    const client = await open("agent/search.html", {
      verbose: 2,
      logger: (l: LogLine) => lines.push(l),
    });
    const result = await client.agent().execute("Open the page");
    const [gotoOutput, keysOutput] = result.message.split(" | ");
    for (const text of [
      gotoOutput,
      keysOutput,
      result.actions[0]!.error,
      result.actions[1]!.error,
    ]) {
      expect(String(text)).not.toContain("\u001b");
      expect(String(text)).not.toContain("Call log");
      expect(String(text)).not.toContain("\n");
    }
    expect(gotoOutput).toContain(`could not open ${url}: the connection was refused`);
    expect(gotoOutput).toContain("check the URL and that the server is up");
    expect(String(result.actions[0]!.error)).toContain("the connection was refused");
    expect(keysOutput).toContain('Unknown key: "NoSuchKey"');
    expect(String(result.actions[1]!.error)).not.toMatch(/^Error: /);
    // Playwright's whole text is for the debug log. (Under REMOTE the service's egress guard
    // answered for the closed port: no Playwright call log, the guard's code as the cause.)
    const debug = JSON.stringify(lines.filter((l) => l.level === 2));
    expect(debug).toContain(ENGINE === "remote" ? "net::ERR_CONNECTION_REFUSED" : "Call log");
  });

  it("refuses a link to a metadata address that act clicks, and tells the model", async () => {
    model.use(
      openaiAgent((turn) => {
        const last = turn.history.at(-1);
        if (!last) return { calls: [call("act", { action: "click the Instance metadata link" })] };
        return { calls: [call("done", { success: false, message: String(last.output) })] };
      }),
      clickingLine('link "Instance metadata"'),
    );
    const client = await open("agent/links.html");
    const result = await client.agent().execute("Open the metadata link");
    expect(result.message).toContain(
      "Navigation refused by the safety rule: http://169.254.169.254/latest/meta-data/ (it is a link-local or cloud metadata address)",
    );
    // The guard is lifted after the run: the client's own navigation is not restricted by it.
    const page = client.context.activePage()!;
    await page.goto(server.url("agent/item.html?id=black"));
    expect(page.url()).toBe(server.url("agent/item.html?id=black"));
  });

  it("returns the error of an input that does not match a tool's schema, or of an unknown tool", async () => {
    model.use(
      openaiAgent((turn) => {
        if (turn.history.length === 0) return { calls: [call("wait", { seconds: "soon" })] };
        if (turn.history.length === 1) return { calls: [call("fly", {})] };
        return {
          calls: [
            call("done", {
              success: false,
              message: turn.history.map((h) => h.output).join(" | "),
            }),
          ],
        };
      }),
    );
    const client = await open("agent/search.html");
    const result = await client.agent().execute("Wait");
    expect(result.message).toMatch(/Invalid input for wait/);
    expect(result.message).toMatch(/no tool "fly"/i);
    // Each call is answered once (a provider refuses two results for one call).
    const last = model.requestsTo("/responses").at(-1)!.body.input as Record<string, unknown>[];
    const outputs = last.filter((i) => i.type === "function_call_output").map((i) => i.call_id);
    expect(outputs).toHaveLength(2);
    expect(new Set(outputs).size).toBe(2);
  });

  it("stops cleanly between steps when the caller's signal aborts", async () => {
    const controller = new AbortController();
    model.use(
      openaiAgent((turn) => {
        // The caller gives up while the model is choosing step 2.
        if (turn.history.length === 1) controller.abort(new Error("user gave up"));
        return { calls: [call("outline")] };
      }),
    );
    const client = await open("agent/search.html");
    const result = await client
      .agent()
      .execute({ instruction: "Read the page", signal: controller.signal });
    expect(result).toMatchObject({
      success: false,
      completed: false,
      metadata: { stoppedBy: "aborted", ...(ENGINE === "remote" ? {} : { steps: 2 }) },
    });
    // Under REMOTE the stop reaches the service over HTTP: the step the model was choosing when
    // the caller gave up may still run; the run then stops at the next step's start.
    const steps = ENGINE === "remote" ? [["outline"], ["outline", "outline"]] : [["outline"]];
    expect(steps).toContainEqual(result.actions.map((a) => a.type));
    // The client goes on working after the run.
    expect((await client.extract()).pageText).toContain("Find a tea");
  });

  it("ends with the model's error when the model cannot be reached", async () => {
    model.use(
      http.post("https://api.openai.com/v1/responses", () =>
        HttpResponse.json({ error: { message: "Incorrect API key provided" } }, { status: 401 }),
      ),
    );
    const client = await open("agent/search.html");
    // A service tells a provider's failure by its status in its own words, never the body.
    await expect(client.agent().execute("Anything")).rejects.toMatchObject({
      name: "LLMResponseError",
      message: expect.stringContaining(
        ENGINE === "remote" ? "the provider refused the credentials" : "Incorrect API key",
      ),
    });
  });
});

describe("agent: pages, tabs and words", () => {
  it("finishes when the model answers in words, with the words as the message", async () => {
    model.use(openaiAgent(() => ({ text: "The answer is 42.", calls: [] })));
    const client = await open("agent/search.html");
    const result = await client.agent().execute("What is the answer?");
    expect(result).toMatchObject({
      success: true,
      completed: true,
      message: "The answer is 42.",
      metadata: { stoppedBy: "text", steps: 1 },
    });
    expect(result.usage!.input_tokens).toBe(OPENAI_USAGE.input);
    expect((await client.metrics).agentPromptTokens).toBe(OPENAI_USAGE.input);
  });

  it("does not count an empty answer as success", async () => {
    model.use(openaiAgent(() => ({ calls: [] })));
    const client = await open("agent/search.html");
    const result = await client.agent().execute("What is the answer?");
    expect(result).toMatchObject({ success: false, completed: true });
    expect(result.message).toMatch(/without calling a tool or saying anything/);
  });

  it("hides a value typed before the run (by act) from its first message on", async () => {
    const SECRET = "teasecret42";
    model.use(openaiAgent(() => ({ calls: [call("outline")] })));
    const client = await open("agent/search.html");
    const variables = { q: SECRET };
    await client.act(
      { selector: "#q", description: "search", method: "fill", arguments: ["%q%"] },
      { variables },
    );
    await client.act({ selector: "button[type=submit]", description: "Search", method: "click" });
    await client.context.activePage()!.playwrightPage.waitForURL(/results/);
    const result = await client.agent().execute({ instruction: "Read", maxSteps: 2 });
    const seen = JSON.stringify([model.requests().map((r) => r.body), result]);
    expect(seen).not.toContain(SECRET);
    expect(seen).toContain("results.html?q=%q%");
  });

  it("opens a page with a short toolTimeout (goto keeps only part of it in reserve)", async () => {
    model.use(
      openaiAgent((turn) =>
        turn.history.length === 0
          ? { calls: [call("goto", { url: server.url("agent/item.html?id=black") })] }
          : { calls: [call("done", { success: true, message: String(turn.history[0]!.output) })] },
      ),
    );
    const client = await open("agent/search.html");
    const result = await client.agent().execute({ instruction: "Open", toolTimeout: 1_000 });
    expect(result.message).toContain("Opened");
    expect(client.context.activePage()!.url()).toBe(server.url("agent/item.html?id=black"));
  });

  it("works on the tab an action opened (target=_blank)", async () => {
    model.use(
      openaiAgent((turn) => {
        const last = turn.history.at(-1);
        if (!last) return { calls: [call("act", { action: "click Green tea in a new tab" })] };
        if (last.name === "act") return { calls: [call("outline")] };
        return { calls: [call("done", { success: true, message: String(last.output) })] };
      }),
      clickingLine('link "Green tea in a new tab"'),
    );
    const client = await open("agent/links.html");
    const result = await client.agent().execute("Open green tea in a new tab and read it");
    expect(result.actions[0]).toMatchObject({ pageUrl: server.url("agent/item.html?id=green") });
    expect(result.message).toContain("$4.20");
    expect(client.context.pages()).toHaveLength(2);
    expect(client.context.activePage()!.url()).toBe(server.url("agent/item.html?id=green"));
  });

  it("can finish after the last tab was closed", async () => {
    let page: import("../../lib/index.js").Page | undefined;
    model.use(
      openaiAgent((turn) => {
        if (turn.history.length === 0) return { calls: [call("think", { thought: "close it" })] };
        return { calls: [call("done", { success: false, message: "the tab was closed" })] };
      }),
    );
    const client = await open("agent/search.html");
    page = client.context.activePage()!;
    const { fullStream, result } = client.agent({ stream: true }).execute("x");
    for await (const e of fullStream) {
      if (e.type === "tool-result") await page.close();
    }
    expect(await result).toMatchObject({
      completed: true,
      message: "the tab was closed",
      metadata: { stoppedBy: "done" },
    });
  });

  it("stops a page load that never ends, so that the next steps can read the page", async () => {
    model.use(
      openaiAgent((turn) => {
        const last = turn.history.at(-1);
        if (!last) return { calls: [call("goto", { url: server.url("__hang") })] };
        if (last.name === "goto") return { calls: [call("outline")] };
        return { calls: [call("done", { success: true, message: String(last.output) })] };
      }),
    );
    const client = await open("agent/search.html");
    const result = await client.agent().execute({ instruction: "Open it", toolTimeout: 3_000 });
    expect(String(result.actions[0]!.error)).toMatch(/Timeout/i);
    expect(result.actions[1]!.error).toBeUndefined();
    expect(result.actions[1]!.type).toBe("outline");
  });

  it("hides a typed value wherever it shows up again, also URL-encoded; untyped values stay", async () => {
    const VALUE = "green tea&co";
    model.use(
      openaiAgent((turn) => {
        const last = turn.history.at(-1);
        if (!last) return { calls: [call("act", { action: "type %q% into the search field" })] };
        if (last.name === "act" && turn.history.length === 1) {
          return { calls: [call("act", { action: "click the Search button" })] };
        }
        if (last.name === "act") return { calls: [call("outline")] };
        return { calls: [call("done", { success: true, message: `Read ${last.output}` })] };
      }),
      teaExecutionModel(),
    );
    const client = await open("agent/search.html");
    const result = await client.agent().execute({
      instruction: "Search for it",
      // "results" is never typed: the page's own word stays as it is.
      variables: { q: VALUE, word: "results" },
    });
    const page = client.context.activePage()!;
    expect(page.url()).toContain("q=green+tea%26co");
    const seen = JSON.stringify([model.requests().map((r) => r.body), result]);
    expect(seen).not.toContain("green tea&amp;co");
    expect(seen).not.toContain("green+tea%26co");
    expect(seen).not.toContain(VALUE);
    expect(seen).toContain("%q%");
    expect(result.message).toContain('0 results for "%q%"');
  });
});

describe("agent screenshots", () => {
  it("shows the model the viewport with fields holding a variable's value painted over", async () => {
    const EMAIL = "ada.lovelace@example.com";
    model.use(
      openaiAgent((turn) => {
        const last = turn.history.at(-1);
        if (!last) return { calls: [call("act", { action: "type %email% into the Email field" })] };
        if (last.name === "act") return { calls: [call("screenshot")] };
        if (last.name === "screenshot" && turn.history.length === 2) {
          return { calls: [call("outline")] };
        }
        if (last.name === "outline") return { calls: [call("screenshot")] };
        return { calls: [call("done", { success: true, message: "seen" })] };
      }),
      openaiResponses((r) => ({
        elements: [
          {
            elementId: idOfLine(promptOf(r), 'textbox "Email"'),
            description: "Email",
            method: "fill",
            arguments: ["%email%"],
          },
        ],
      })),
    );
    const client = await open("agent/signup.html");
    const page = client.context.activePage()!;
    const box = (await page.locator("input[name=email]").boundingBox())!;
    await client.agent().execute({ instruction: "Fill and look", variables: { email: EMAIL } });

    const steps = model.requestsTo("/responses").filter((r) => Array.isArray(r.body.tools));
    // Step 3 (after the screenshot) carries the image in a user message after the tool results.
    const input = steps[2]!.body.input as {
      role?: string;
      content?: { type: string; image_url?: string }[];
    }[];
    const image = input
      .filter((m) => m.role === "user")
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .find((c) => c.type === "input_image")!;
    expect(image.image_url).toMatch(/^data:image\/png;base64,/);
    // The field's middle is Playwright's mask colour (magenta), not the typed text.
    const pixel = await page.evaluate(
      async ({ url, x, y }) => {
        const img = new Image();
        img.src = url;
        await img.decode();
        const canvas = document.createElement("canvas");
        canvas.width = img.width;
        canvas.height = img.height;
        const g = canvas.getContext("2d")!;
        g.drawImage(img, 0, 0);
        return [...g.getImageData(x, y, 1, 1).data];
      },
      { url: image.image_url!, x: Math.round(box.x + 8), y: Math.round(box.y + box.height / 2) },
    );
    expect(pixel.slice(0, 3)).toEqual([255, 0, 255]);
    // The marks are gone from the page. An outline read after it leaves the image in the
    // conversation (points are named in it); the next screenshot replaces it.
    expect(
      await page.evaluate(() => document.querySelectorAll("[data-wayfarer-mask]").length),
    ).toBe(0);
    const images = (n: number) =>
      JSON.stringify(steps[n]!.body.input).split('"type":"input_image"').length - 1;
    expect(images(3)).toBe(1);
    expect(images(4)).toBe(1);
    expect(JSON.stringify(steps[4]!.body.input)).toContain("earlier screenshots, left out");
  });

  it("paints over a value in an open shadow root's input and in an editable region too", async () => {
    const SECRET = "tok-0123456789-secret";
    model.use(
      openaiAgent((turn) =>
        turn.history.length === 0
          ? { calls: [call("screenshot")] }
          : { calls: [call("done", { success: true, message: "seen" })] },
      ),
    );
    const client = await open("agent/shadow-form.html");
    const page = client.context.activePage()!;
    const pw = page.playwrightPage;
    await pw.locator("login-box #token").fill(SECRET);
    await pw.locator("#note").fill(`note: ${SECRET}`);
    const boxes = [
      (await pw.locator("login-box #token").boundingBox())!,
      (await pw.locator("#note").boundingBox())!,
    ];
    await client.agent().execute({ instruction: "Look", variables: { token: SECRET } });
    const step2 = model.requestsTo("/responses")[1]!;
    const image = latestImageIn(step2.body)!;
    for (const box of boxes) {
      const o = (Math.round(box.y + box.height / 2) * image.width + Math.round(box.x + 20)) * 4;
      expect([...image.pixels.slice(o, o + 3)]).toEqual([255, 0, 255]);
    }
    // Put back as they were.
    expect(await pw.locator("login-box #token").getAttribute("style")).toBe(
      "width:300px;height:40px;font-size:24px",
    );
    expect(await pw.locator("#note").getAttribute("data-wayfarer-mask")).toBeNull();
  });
});

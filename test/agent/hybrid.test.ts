import { http } from "msw";
import { describe, expect, it } from "vitest";
import { cursorPosition } from "../../lib/agent/cursor.js";
import type { Client } from "../../lib/index.js";
import { useClients } from "../support/clients.js";
import { type AgentTurn, call, openaiAgent } from "../support/llm/agentModel.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { clickingLine } from "../support/llm/openai.js";
import { centreOf, type Image, latestImageIn, rightmostOnRow } from "../support/png.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const clients = useClients();
const KEY = "sk-hybrid-test-key-123456";

/** The grey track's right end on the knob's row: where the slider is full. */
const trackEnd = (image: Image, y: number) => rightmostOnRow(image, y, [0x99, 0x99, 0x99]);

/**
 * The scripted model looks at the screenshots it is sent: it clicks the red target's middle,
 * reads the page, drags the blue knob to the end of the grey track, reads again, finishes.
 */
const canvasModel = openaiAgent((turn: AgentTurn) => {
  const done = turn.history.map((h) => h.name);
  const image = latestImageIn(turn.request.body);
  if (!done.includes("screenshot")) return { calls: [call("screenshot")] };
  if (!done.includes("clickAt")) {
    const red = centreOf(image!, [255, 0, 0])!;
    return { calls: [call("clickAt", { x: red.x, y: red.y })] };
  }
  if (done.at(-1) === "clickAt") return { calls: [call("outline")] };
  if (!done.includes("think")) {
    // Noted before the next outline replaces this one in the conversation.
    const status = turn.history.at(-1)!.output!.match(/Red pressed at \d+,\d+/)?.[0] ?? "no press";
    return { calls: [call("think", { thought: status })] };
  }
  if (!done.includes("dragAt")) {
    const knob = centreOf(image!, [0, 0, 255])!;
    return { calls: [call("dragAt", { path: [knob, trackEnd(image!, knob.y)] })] };
  }
  if (done.at(-1) === "dragAt") return { calls: [call("outline")] };
  const pressed = turn.history.find((h) => h.name === "think")!.input.thought;
  const slider = turn.history.at(-1)!.output!.match(/Slider at \d+%/)?.[0] ?? "no slide";
  return { calls: [call("done", { success: true, message: `${pressed}; ${slider}` })] };
});

async function runOnCanvas(client: Client) {
  model.use(canvasModel);
  const result = await client
    .agent({ mode: "hybrid" })
    .execute("Press the red button, then slide the blue knob all the way right");
  const [pressed, slider] = result.message.split("; ");
  const [dx, dy] = pressed!.replace("Red pressed at ", "").split(",").map(Number);
  return { result, dx: dx!, dy: dy!, slider };
}

describe("agent, hybrid mode", () => {
  it("operates a canvas only coordinates can reach", async () => {
    const client = await clients.openOn(server.url("agent/canvas.html"), {
      model: { modelName: "openai/gpt-4.1", apiKey: KEY },
    });
    const { result, dx, dy, slider } = await runOnCanvas(client);
    expect(result.success).toBe(true);
    // The red target is 60×44: its middle is (30, 22), to within the rounding of a pixel.
    expect(Math.abs(dx - 30)).toBeLessThanOrEqual(1);
    expect(Math.abs(dy - 22)).toBeLessThanOrEqual(1);
    expect(slider).toBe("Slider at 100%");
    // The model was offered the coordinate tools, and shown a screenshot after each action.
    const tools = model.requestsTo("/responses")[0]!.body.tools as { name: string }[];
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "clickAt",
        "dragAt",
        "typeAt",
        "scrollAt",
        "holdAt",
        "fillFormAt",
        "doubleClickAt",
      ]),
    );
  });

  it("maps points back exactly at device scale factor 2 with a viewport scaled down to fit", async () => {
    const client = await clients.openOn(server.url("agent/canvas.html"), {
      model: { modelName: "openai/gpt-4.1", apiKey: KEY },
    });
    const pw = client.context.activePage()!.playwrightPage;
    const cdp = await pw.context().newCDPSession(pw);
    await cdp.send("Emulation.setDeviceMetricsOverride", {
      width: 1600,
      height: 1000,
      deviceScaleFactor: 2,
      mobile: false,
    });
    expect(await pw.evaluate(() => [innerWidth, devicePixelRatio])).toEqual([1600, 2]);
    const { result, dx, dy, slider } = await runOnCanvas(client);
    // The model saw 1280×800 (1600×1000 CSS pixels at 0.8), not 3200×2000 device pixels.
    const step2 = model.requestsTo("/responses")[1]!;
    const image = latestImageIn(step2.body)!;
    expect([image.width, image.height]).toEqual([1280, 800]);
    expect(result.success).toBe(true);
    expect(Math.abs(dx - 30)).toBeLessThanOrEqual(1);
    expect(Math.abs(dy - 22)).toBeLessThanOrEqual(1);
    expect(slider).toBe("Slider at 100%");
    await cdp.detach();
  });
});

describe("agent, hybrid mode: every coordinate tool", () => {
  it("double-clicks, holds, types, fills and scrolls at points it finds in the screenshots", async () => {
    const SECRET = "s3cr3t-value-42";
    const colour = (turn: AgentTurn, rgb: [number, number, number]) =>
      centreOf(latestImageIn(turn.request.body)!, rgb)!;
    model.use(
      openaiAgent((turn) => {
        const done = turn.history.map((h) => h.name);
        if (!done.includes("screenshot")) return { calls: [call("screenshot")] };
        if (!done.includes("doubleClickAt")) {
          return { calls: [call("doubleClickAt", colour(turn, [0, 255, 0]))] };
        }
        if (!done.includes("holdAt")) {
          return { calls: [call("holdAt", { ...colour(turn, [128, 0, 128]), seconds: 1 })] };
        }
        if (!done.includes("typeAt")) {
          return {
            calls: [call("typeAt", { ...colour(turn, [255, 255, 0]), text: "typed here" })],
          };
        }
        if (!done.includes("fillFormAt")) {
          const first = colour(turn, [255, 255, 0]);
          const second = colour(turn, [0, 255, 255]);
          return {
            calls: [
              call("fillFormAt", {
                fields: [
                  { ...first, value: "replaced" },
                  { ...second, value: "%secret%" },
                ],
              }),
            ],
          };
        }
        if (!done.includes("scrollAt")) {
          return {
            calls: [
              call("scrollAt", { ...colour(turn, [255, 136, 0]), direction: "down", amount: 200 }),
            ],
          };
        }
        return { calls: [call("done", { success: true, message: "all done" })] };
      }),
    );
    const client = await clients.openOn(server.url("agent/coords.html"), {
      model: { modelName: "openai/gpt-4.1", apiKey: KEY },
    });
    const pw = client.context.activePage()!.playwrightPage;
    const statuses: string[] = [];
    const { fullStream, result } = client
      .agent({ mode: "hybrid", stream: true })
      .execute({ instruction: "Use every control", variables: { secret: SECRET } });
    for await (const e of fullStream) {
      if (e.type === "tool-result")
        statuses.push((await pw.locator("#status").textContent()) ?? "");
    }
    expect((await result).success).toBe(true);
    expect(statuses).toContain("Green double-clicked");
    expect(statuses).toContain("Purple held");
    expect(await pw.locator("#first").inputValue()).toBe("replaced");
    expect(await pw.locator("#second").inputValue()).toBe(SECRET);
    expect(await pw.locator("#list").evaluate((el) => el.scrollTop)).toBeGreaterThan(100);
    // The secret was typed, never sent: the field holding it is painted over in screenshots.
    expect(JSON.stringify(model.requests().map((r) => r.body))).not.toContain(SECRET);
  });
});

describe("agent, hybrid mode: screens over time", () => {
  it("maps a point by the screenshot it was named in, after the viewport changed", async () => {
    const client = await clients.openOn(server.url("agent/canvas.html"), {
      model: { modelName: "openai/gpt-4.1", apiKey: KEY },
    });
    const pw = client.context.activePage()!.playwrightPage;
    await pw.setViewportSize({ width: 1600, height: 1000 });
    let steps = 0;
    model.use(
      // The window is made smaller while the model looks at the 1600×1000 screenshot.
      http.post("https://api.openai.com/v1/responses", async () => {
        if (++steps === 2) await pw.setViewportSize({ width: 900, height: 600 });
        return undefined;
      }),
      openaiAgent((turn) => {
        const done = turn.history.map((h) => h.name);
        if (!done.length) return { calls: [call("screenshot")] };
        if (done.length === 1) {
          return {
            calls: [call("clickAt", centreOf(latestImageIn(turn.request.body)!, [255, 0, 0])!)],
          };
        }
        return { calls: [call("done", { success: true, message: "clicked" })] };
      }),
    );
    await client.agent({ mode: "hybrid" }).execute("Press the red button");
    const status = await pw.locator("#status").textContent();
    const [dx, dy] = status!.replace("Red pressed at ", "").split(",").map(Number);
    expect(Math.abs(dx! - 30)).toBeLessThanOrEqual(1);
    expect(Math.abs(dy! - 22)).toBeLessThanOrEqual(1);
  });

  it("shows the cursor where it clicks (highlightCursor), mapped like the click", async () => {
    const client = await clients.openOn(server.url("agent/canvas.html"), {
      model: { modelName: "openai/gpt-4.1", apiKey: KEY },
    });
    const page = client.context.activePage()!;
    await page.playwrightPage.setViewportSize({ width: 1600, height: 1000 });
    let cursor: { x: number; y: number } | null = null;
    let steps = 0;
    model.use(
      http.post("https://api.openai.com/v1/responses", async ({ request }) => {
        const body = (await request.clone().json()) as { tools?: unknown };
        if (body.tools && ++steps === 3) cursor = await cursorPosition(page);
        return undefined;
      }),
      openaiAgent((turn) => {
        const done = turn.history.map((h) => h.name);
        if (!done.length) return { calls: [call("screenshot")] };
        if (done.length === 1) {
          return {
            calls: [call("clickAt", centreOf(latestImageIn(turn.request.body)!, [255, 0, 0])!)],
          };
        }
        return { calls: [call("done", { success: true, message: "clicked" })] };
      }),
    );
    await client
      .agent({ mode: "hybrid" })
      .execute({ instruction: "Press red", highlightCursor: true });
    // The red target's middle in CSS pixels: canvas at (230, 170), target at (310, 40), 60×44.
    // (Within a pixel: the model names the middle of the pixels it sees at 0.8 scale.)
    expect(Math.abs(cursor!.x - 570)).toBeLessThanOrEqual(1);
    expect(Math.abs(cursor!.y - 232)).toBeLessThanOrEqual(1);
    expect(await cursorPosition(page)).toBeNull();
  });

  it("goes on in the tab left when a click closes its own", async () => {
    const client = await clients.openOn(server.url("agent/links.html"), {
      model: { modelName: "openai/gpt-4.1", apiKey: KEY },
    });
    model.use(
      openaiAgent((turn) => {
        const done = turn.history.map((h) => h.name);
        if (!done.length) return { calls: [call("act", { action: "click Open the closer" })] };
        if (done.length === 1) return { calls: [call("screenshot")] };
        if (done.length === 2) {
          const red = centreOf(latestImageIn(turn.request.body)!, [255, 0, 0])!;
          return { calls: [call("clickAt", red)] };
        }
        return { calls: [call("done", { success: true, message: "closed" })] };
      }),
      clickingLine('link "Open the closer"'),
    );
    const result = await client.agent({ mode: "hybrid" }).execute("Open the closer and close it");
    expect(result.actions[1]).toMatchObject({
      type: "screenshot",
      pageUrl: server.url("agent/closer.html"),
    });
    expect(result.actions[2]).toMatchObject({
      type: "clickAt",
      pageUrl: server.url("agent/links.html"),
    });
    expect(result.actions[2]!.error).toBeUndefined();
    expect(client.context.pages()).toHaveLength(1);
  });
});

import { describe, expect, it } from "vitest";
import type { Client } from "../../lib/index.js";
import { ENGINE, useClients } from "../support/clients.js";
import {
  anthropicComputerUse,
  googleComputerUse,
  openaiComputerUse,
  type ScreenAnswer,
  type ScreenTurn,
} from "../support/llm/computerUse.js";
import { failing, useModelServer } from "../support/llm/modelServer.js";
import { centreOf, type Image, rightmostOnRow } from "../support/png.js";
import { freePort } from "../support/ports.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const clients = useClients();

/** The grey track's right end on the knob's row: where the slider is full. */
const trackEnd = (image: Image, y: number) => rightmostOnRow(image, y, [0x99, 0x99, 0x99]);

/** What a computer-use model does on the canvas page, from the screenshot it is sent. */
function canvasPlan(turn: ScreenTurn): {
  click?: { x: number; y: number };
  drag?: [{ x: number; y: number }, { x: number; y: number }];
  done?: true;
} {
  if (turn.actionsSoFar === 0) {
    const red = centreOf(turn.screen, [255, 0, 0])!;
    return { click: { x: Math.round(red.x), y: Math.round(red.y) } };
  }
  if (turn.actionsSoFar === 1) {
    const knob = centreOf(turn.screen, [0, 0, 255])!;
    const end = trackEnd(turn.screen, knob.y);
    return {
      drag: [
        { x: Math.round(knob.x), y: Math.round(knob.y) },
        { x: end.x, y: Math.round(knob.y) },
      ],
    };
  }
  return { done: true };
}

const openaiCanvas = (turn: ScreenTurn): ScreenAnswer => {
  const plan = canvasPlan(turn);
  if (plan.click) return { action: { type: "click", button: "left", ...plan.click } };
  if (plan.drag) return { action: { type: "drag", path: plan.drag } };
  return { text: "Pressed the red button and moved the slider to the end." };
};

const anthropicCanvas = (turn: ScreenTurn): ScreenAnswer => {
  const plan = canvasPlan(turn);
  if (plan.click)
    return { action: { action: "left_click", coordinate: [plan.click.x, plan.click.y] } };
  if (plan.drag) {
    const [from, to] = plan.drag;
    return {
      action: {
        action: "left_click_drag",
        start_coordinate: [from.x, from.y],
        coordinate: [to.x, to.y],
      },
    };
  }
  return { text: "Pressed the red button and moved the slider to the end." };
};

/** Gemini names points on a 0–999 grid over the screenshot. */
const googleCanvas = (turn: ScreenTurn): ScreenAnswer => {
  const plan = canvasPlan(turn);
  const grid = (p: { x: number; y: number }) => ({
    x: Math.round((p.x / turn.screen.width) * 1000),
    y: Math.round((p.y / turn.screen.height) * 1000),
  });
  if (plan.click) return { action: { name: "click_at", args: grid(plan.click) } };
  if (plan.drag) {
    const [from, to] = plan.drag.map(grid) as [{ x: number; y: number }, { x: number; y: number }];
    return {
      action: {
        name: "drag_and_drop",
        args: { x: from.x, y: from.y, destination_x: to.x, destination_y: to.y },
      },
    };
  }
  return { text: "Pressed the red button and moved the slider to the end." };
};

/** A cua run on the canvas, with the page's status after each action. */
async function runStreamed(client: Client) {
  const states: string[] = [];
  const { fullStream, result } = client
    .agent({ mode: "cua", stream: true })
    .execute("Press the red button, then slide the knob all the way");
  for await (const e of fullStream) {
    if (e.type === "tool-result") states.push((await status(client)) ?? "");
  }
  return { states, final: await result };
}

/** The canvas plan for OpenAI, with safety checks raised on its first action. */
const checkedFirst =
  (check: { id: string; code: string; message: string }) =>
  (turn: ScreenTurn): ScreenAnswer => {
    const answer = openaiCanvas(turn);
    return "action" in answer && turn.actionsSoFar === 0
      ? { ...answer, safetyChecks: [check] }
      : answer;
  };

const status = (client: Client) =>
  client.context.activePage()!.playwrightPage.locator("#status").textContent();

describe("agent, cua mode", () => {
  it("drives the page through OpenAI's computer-use protocol", async () => {
    const client = await clients.openOn(server.url("agent/canvas.html"), {
      model: { modelName: "openai/computer-use-preview", apiKey: "sk-cua-openai-123456" },
    });
    model.use(
      openaiComputerUse((turn) => {
        return openaiCanvas(turn);
      }),
    );
    const { states, final } = await runStreamed(client);
    expect(final).toMatchObject({
      success: true,
      completed: true,
      message: "Pressed the red button and moved the slider to the end.",
    });
    expect(states[0]).toMatch(/^Red pressed at (29|30|31),(21|22|23)$/);
    expect(await status(client)).toBe("Slider at 100%");
    const requests = model.requestsTo("/responses");
    expect(requests).toHaveLength(3);
    const first = requests[0]!.body;
    expect(first.tools).toEqual([
      {
        type: "computer_use_preview",
        display_width: 1280,
        display_height: 720,
        environment: "browser",
      },
    ]);
    expect(first.truncation).toBe("auto");
    // Each call's result goes back as a computer_call_output with the screenshot after it,
    // after the call itself and the reasoning item that preceded it.
    const second = requests[1]!.body.input as Record<string, unknown>[];
    const types = second.map((i) => i.type ?? i.role);
    expect(types).toEqual(["system", "user", "reasoning", "computer_call", "computer_call_output"]);
    // With the page's address, for the provider's domain checks.
    expect(second[4]!.current_url).toBe(server.url("agent/canvas.html"));
    const output = second[4]!.output as { type: string; image_url: string };
    expect(output.type).toBe("computer_screenshot");
    expect(output.image_url).toMatch(/^data:image\/png;base64,iVBOR/);
    expect(final.actions.map((a) => a.type)).toEqual(["computer", "computer", "message"]);
    // Only the latest screenshot travels in full; an older one is a 1×1 stand-in.
    const third = requests[2]!.body.input as { type?: string; output?: { image_url: string } }[];
    const shots = third
      .filter((i) => i.type === "computer_call_output")
      .map((i) => i.output!.image_url);
    expect(shots).toHaveLength(2);
    expect(shots[0]!.length).toBeLessThan(200);
    expect(shots[1]!.length).toBeGreaterThan(1_000);
    expect((await client.metrics).agentPromptTokens).toBeGreaterThan(0);
  });

  it("surfaces OpenAI's safety checks: not acknowledged, the run stops before the action", async () => {
    const client = await clients.openOn(server.url("agent/canvas.html"), {
      model: { modelName: "openai/computer-use-preview", apiKey: "sk-cua-openai-123456" },
    });
    const check = {
      id: "sc_1",
      code: "malicious_instructions",
      message: "The page may be instructing you.",
    };
    model.use(openaiComputerUse(checkedFirst(check)));
    const stopped = await client.agent({ mode: "cua" }).execute("Press the red button");
    expect(stopped).toMatchObject({
      success: false,
      completed: false,
      metadata: { stoppedBy: "safetyCheck", safetyChecks: [check] },
    });
    expect(stopped.message).toContain("malicious_instructions");
    expect(await status(client)).toBe("Nothing pressed");
    if (ENGINE !== "local") {
      // A function cannot cross the wire: the option is refused by name, nothing runs.
      await expect(
        client.agent({ mode: "cua" }).execute({ instruction: "Press", onSafetyCheck: () => true }),
      ).rejects.toThrow(/onSafetyCheck[\s\S]*cannot cross/);
      expect(await status(client)).toBe("Nothing pressed");
      return;
    }
    // Only a plain true acknowledges: a truthy answer, or one that throws, stops the run too.
    for (const onSafetyCheck of [
      () => "yes" as unknown as boolean,
      () => {
        throw new Error("asked nobody");
      },
    ]) {
      const again = await client
        .agent({ mode: "cua" })
        .execute({ instruction: "Press", onSafetyCheck });
      expect(again.metadata).toMatchObject({ stoppedBy: "safetyCheck" });
    }
    expect(await status(client)).toBe("Nothing pressed");
  });

  // onSafetyCheck is a function: it cannot cross the wire (the test above checks the refusal).
  it.skipIf(ENGINE !== "local")(
    "acts on OpenAI's safety checks when onSafetyCheck acknowledges them, and says so to the provider",
    async () => {
      const client = await clients.openOn(server.url("agent/canvas.html"), {
        model: { modelName: "openai/computer-use-preview", apiKey: "sk-cua-openai-123456" },
      });
      const check = { id: "sc_1", code: "irrelevant_domain", message: "Unexpected domain." };
      model.use(openaiComputerUse(checkedFirst(check)));
      const seen: unknown[] = [];
      const result = await client.agent({ mode: "cua" }).execute({
        instruction: "Press the red button, then slide the knob",
        onSafetyCheck: (checks) => {
          seen.push(...checks);
          return true;
        },
      });
      expect(result.success).toBe(true);
      expect(seen).toEqual([check]);
      const second = model.requestsTo("/responses")[1]!.body.input as Record<string, unknown>[];
      expect(second.find((i) => i.type === "computer_call_output")).toMatchObject({
        acknowledged_safety_checks: [check],
      });
      expect(await status(client)).toBe("Slider at 100%");
    },
  );

  it("drives the page through Anthropic's computer-use tool", async () => {
    const client = await clients.openOn(server.url("agent/canvas.html"), {
      model: { modelName: "anthropic/claude-sonnet-4-5", apiKey: "sk-ant-cua-123456" },
    });
    model.use(anthropicComputerUse(anthropicCanvas));
    const { states, final } = await runStreamed(client);
    expect(final).toMatchObject({ success: true, completed: true });
    expect(states[0]).toMatch(/^Red pressed at (29|30|31),(21|22|23)$/);
    expect(await status(client)).toBe("Slider at 100%");
    const requests = model.requestsTo("api.anthropic.com");
    const first = requests[0]!;
    expect(first.body.tools).toEqual([
      expect.objectContaining({
        type: "computer_20250124",
        name: "computer",
        display_width_px: 1280,
        display_height_px: 720,
      }),
    ]);
    expect(first.headers.get("anthropic-beta")).toContain("computer-use");
    // The result of each action is a tool_result carrying the screenshot.
    const last = (
      requests[1]!.body.messages as { content: { type: string; content?: { type: string }[] }[] }[]
    ).at(-1)!;
    const toolResult = last.content.find((c) => c.type === "tool_result")!;
    expect(toolResult.content!.map((c) => c.type)).toEqual(["text", "image"]);
  });

  it("drives the page through Gemini's computer-use tool (points on its 0–999 grid)", async () => {
    const name = "gemini-2.5-computer-use-preview-10-2025";
    const client = await clients.openOn(server.url("agent/canvas.html"), {
      model: { modelName: `google/${name}`, apiKey: "gemini-cua-key-123456" },
    });
    model.use(googleComputerUse(name, googleCanvas));
    const { states, final } = await runStreamed(client);
    expect(final).toMatchObject({ success: true, completed: true });
    expect(states[0]).toMatch(/^Red pressed at (2[89]|3[0-2]),(2[0-4])$/);
    expect(await status(client)).toBe("Slider at 100%");
    const requests = model.requestsTo("generativelanguage.googleapis.com");
    expect(requests[0]!.body.tools).toEqual([
      { computerUse: { environment: "ENVIRONMENT_BROWSER" } },
    ]);
    expect(requests[0]!.headers.get("x-goog-api-key")).toBe("gemini-cua-key-123456");
    // The action's result: a functionResponse named after the action, with the URL and the
    // screenshot.
    const contents = requests[1]!.body.contents as {
      role: string;
      parts: Record<string, unknown>[];
    }[];
    const reply = contents.at(-1)!.parts[0]!.functionResponse as {
      name: string;
      response: { url: string };
      parts: { inlineData: { mimeType: string } }[];
    };
    expect(reply.name).toBe("click_at");
    expect(reply.response.url).toBe(server.url("agent/canvas.html"));
    expect(reply.parts[0]!.inlineData.mimeType).toBe("image/png");
    expect(final.usage).toMatchObject({ input_tokens: 300, reasoning_tokens: 15 });
  });

  it("records Gemini's navigate to a closed port as one readable line: what failed, what to do", async () => {
    const name = "gemini-2.5-computer-use-preview-10-2025";
    const url = `http://127.0.0.1:${await freePort()}/`;
    const client = await clients.openOn(server.url("agent/canvas.html"), {
      model: { modelName: `google/${name}`, apiKey: "gemini-cua-key-123456" },
    });
    model.use(
      googleComputerUse(name, (turn) =>
        turn.actionsSoFar === 0
          ? { action: { name: "navigate", args: { url } } }
          : { text: "done" },
      ),
    );
    const final = await client.agent({ mode: "cua" }).execute("Open the page");
    const error = String(final.actions[0]!.error);
    expect(error).not.toContain("\u001b");
    expect(error).not.toContain("Call log");
    expect(error).not.toContain("\n");
    expect(error).toContain(`could not open ${url}: the connection was refused`);
    // The model is told the same, with the screenshot.
    const reply = JSON.stringify(model.requestsTo("generativelanguage.googleapis.com")[1]!.body);
    expect(reply).toContain("the connection was refused");
    expect(reply).not.toContain("Call log");
  });

  it("surfaces Gemini's safety decisions the same way, and acknowledges them when told to", async () => {
    const name = "gemini-2.5-computer-use-preview-10-2025";
    const decision = { decision: "require_confirmation", explanation: "About to accept terms." };
    const withDecision = (turn: ScreenTurn): ScreenAnswer => {
      const answer = googleCanvas(turn);
      if (!("action" in answer) || turn.actionsSoFar > 0) return answer;
      const args = answer.action.args as Record<string, unknown>;
      return { action: { ...answer.action, args: { ...args, safety_decision: decision } } };
    };
    const open = () =>
      clients.openOn(server.url("agent/canvas.html"), {
        model: { modelName: `google/${name}`, apiKey: "gemini-cua-key-123456" },
      });
    model.use(googleComputerUse(name, withDecision));
    const refused = await open();
    const stopped = await refused.agent({ mode: "cua" }).execute("Press the red button");
    expect(stopped).toMatchObject({ completed: false, metadata: { stoppedBy: "safetyCheck" } });
    expect(stopped.message).toContain("require_confirmation");
    expect(await status(refused)).toBe("Nothing pressed");
    // Acknowledging takes onSafetyCheck, a function the wire cannot carry.
    if (ENGINE !== "local") return;

    const accepted = await open();
    const result = await accepted.agent({ mode: "cua" }).execute({
      instruction: "Press the red button, then slide the knob",
      onSafetyCheck: async () => true,
    });
    expect(result.success).toBe(true);
    const requests = model.requestsTo("generativelanguage.googleapis.com");
    const contents = requests.at(-2)!.body.contents as { parts: Record<string, unknown>[] }[];
    const replies = contents
      .flatMap((c) => c.parts)
      .filter((p) => p.functionResponse)
      .map((p) => (p.functionResponse as { response: Record<string, unknown> }).response);
    expect(replies[0]).toMatchObject({ safety_acknowledgement: "true" });
    expect(await status(accepted)).toBe("Slider at 100%");
  });

  it("refuses act/extract with a computer-use-only model, before any request", async () => {
    const client = await clients.openOn(server.url("agent/canvas.html"), {
      model: { modelName: "openai/computer-use-preview", apiKey: "sk-cua-openai-123456" },
    });
    await expect(client.extract("the status")).rejects.toMatchObject({
      name: "UnsupportedModelError",
      supported: ["cua"],
    });
    expect(model.requests()).toHaveLength(0);
  });

  it("does not count an answer Gemini cut short as a success", async () => {
    const name = "gemini-2.5-computer-use-preview-10-2025";
    const client = await clients.openOn(server.url("agent/canvas.html"), {
      model: { modelName: `google/${name}`, apiKey: "gemini-cua-key-123456" },
    });
    model.use(
      googleComputerUse(name, () => ({ text: "The answer is", finishReason: "MAX_TOKENS" })),
    );
    const result = await client.agent({ mode: "cua" }).execute("Read it");
    expect(result).toMatchObject({ success: false, completed: true });
    expect(result.message).toContain("finish reason: length");
  });

  it("retries a computer-use call the provider rate-limits, and keeps its key out of errors", async () => {
    const KEY = "sk-cua-openai-secret-987654321";
    const client = await clients.openOn(server.url("agent/canvas.html"), {
      model: { modelName: "openai/computer-use-preview", apiKey: KEY },
    });
    model.use(
      failing(
        "https://api.openai.com/v1/responses",
        429,
        { error: { message: "slow down" } },
        { times: 1 },
      ),
      openaiComputerUse(openaiCanvas),
    );
    const result = await client.agent({ mode: "cua" }).execute("Press, then slide");
    expect(result.success).toBe(true);
    expect(model.requestsTo("/responses")).toHaveLength(4);
    model.use(
      failing("https://api.openai.com/v1/responses", 401, {
        error: { message: `Incorrect API key provided: ${KEY}` },
      }),
    );
    const error = await client
      .agent({ mode: "cua" })
      .execute("Press")
      .catch((e: unknown) => e as Error);
    expect(error).toMatchObject({ name: "LLMResponseError", status: 401 });
    expect(String((error as Error).message)).toContain(
      ENGINE === "remote" ? "the provider refused the credentials" : "Incorrect API key",
    );
    expect(String((error as Error).message)).not.toContain(KEY);
  });

  it("keeps a value typed into a form out of the page URL it sends back (current_url)", async () => {
    const SECRET = "hunter2-secret-77";
    const client = await clients.openOn(server.url("agent/cua-form.html"), {
      model: { modelName: "openai/computer-use-preview", apiKey: "sk-cua-openai-123456" },
    });
    model.use(
      openaiComputerUse((turn) => {
        if (turn.actionsSoFar === 0) {
          const field = centreOf(turn.screen, [255, 255, 0])!;
          return {
            action: {
              type: "click",
              button: "left",
              x: Math.round(field.x),
              y: Math.round(field.y),
            },
          };
        }
        if (turn.actionsSoFar === 1) return { action: { type: "type", text: "%secret%" } };
        if (turn.actionsSoFar === 2) return { action: { type: "keypress", keys: ["ENTER"] } };
        return { text: "searched" };
      }),
    );
    const result = await client
      .agent({ mode: "cua" })
      .execute({ instruction: "Search for the secret", variables: { secret: SECRET } });
    expect(result.success).toBe(true);
    expect(client.context.activePage()!.url()).toContain(`q=${SECRET}`);
    const sent = JSON.stringify(model.requests().map((r) => r.body));
    expect(sent).not.toContain(SECRET);
    expect(sent).toContain("results.html?q=%secret%");
  });

  it("lets go of a held key when the tool's time runs out (Anthropic hold_key)", async () => {
    const client = await clients.openOn(server.url("agent/canvas.html"), {
      model: { modelName: "anthropic/claude-sonnet-4-5", apiKey: "sk-ant-cua-123456" },
    });
    model.use(
      anthropicComputerUse((turn) =>
        turn.actionsSoFar === 0
          ? { action: { action: "hold_key", text: "shift", duration: 4 } }
          : { text: "done" },
      ),
    );
    await client.agent({ mode: "cua" }).execute({ instruction: "Hold shift", toolTimeout: 1_000 });
    const pw = client.context.activePage()!.playwrightPage;
    // The listener is in place before the click (an evaluate still on its way would miss it).
    await pw.evaluate(() => {
      const w = window as unknown as { shifts: boolean[] };
      w.shifts = [];
      addEventListener("click", (e) => w.shifts.push(e.shiftKey));
    });
    await pw.mouse.click(5, 5);
    expect(await pw.evaluate(() => (window as unknown as { shifts: boolean[] }).shifts)).toEqual([
      false,
    ]);
  });

  it("records an action that failed as an error, answers with a screenshot, and goes on", async () => {
    const client = await clients.openOn(server.url("agent/canvas.html"), {
      model: { modelName: "anthropic/claude-sonnet-4-5", apiKey: "sk-ant-cua-123456" },
    });
    const pw = client.context.activePage()!.playwrightPage;
    // In place before the run: the click it watches for comes during the run.
    await pw.evaluate(() => {
      const w = window as unknown as { clicks: boolean[][] };
      w.clicks = [];
      addEventListener("click", (e) => w.clicks.push([e.ctrlKey, e.shiftKey]));
    });
    model.use(
      anthropicComputerUse((turn) => {
        // Valid by the provider's schema, impossible to do: a drag with no start.
        if (turn.actionsSoFar === 0)
          return { action: { action: "left_click_drag", coordinate: [5, 5] } };
        if (turn.actionsSoFar === 1) {
          return { action: { action: "left_click", coordinate: [20, 20], text: "ctrl+shift" } };
        }
        return { text: "done" };
      }),
    );
    const { fullStream, result } = client.agent({ mode: "cua", stream: true }).execute("Try");
    const errors: boolean[] = [];
    for await (const e of fullStream) if (e.type === "tool-result") errors.push(e.error);
    const final = await result;
    expect(errors).toEqual([true, false]);
    expect(String(final.actions[0]!.error)).toContain("left_click_drag needs start_coordinate");
    expect(final.actions[1]!.error).toBeUndefined();
    // A chord of modifiers is held key by key around the click.
    expect(await pw.evaluate(() => (window as unknown as { clicks: boolean[][] }).clicks)).toEqual([
      [true, true],
    ]);
    // The failed call still answered with a screenshot, as the protocol expects.
    const second = model.requestsTo("api.anthropic.com")[1]!;
    expect(JSON.stringify(second.body.messages)).toContain('"type":"image"');
  });
});

/**
 * The agent acting on the [id]s of the outline its model read: no second model call, the
 * element checked to be the one shown, the page after it in the result; and the guardrails of
 * its loop, each against a scripted model that misbehaves that way.
 */
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { useClients } from "../support/clients.js";
import { call, openaiAgent, readAgentTurn, type StepScript } from "../support/llm/agentModel.js";
import { idOfLine, useModelServer } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { teaAgentById } from "../support/llm/teaAgent.js";
import { WORKSHOP_TASK, workshopByIdAgent } from "../support/llm/workshopAgent.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const clients = useClients();

const open = (file: string) =>
  clients.openOn(server.url(file), {
    model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-by-id-test-123456" },
  });

/** The agent's steps as the model received them (requests that offer tools). */
const turns = () =>
  model
    .requestsTo("/responses")
    .filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0)
    .map((r) => readAgentTurn(r));

/** A tool's model calls (act, extract): requests without tools. */
const toolCalls = () =>
  model
    .requestsTo("/responses")
    .filter((r) => !Array.isArray(r.body.tools) || !r.body.tools.length);

/** How many tool results a step's request carries: 1 on the step after the first. */
const resultsIn = (body: unknown) =>
  ((body as { input?: { type?: string }[] }).input ?? []).filter(
    (i) => i.type === "function_call_output",
  ).length;

/** The latest output that shows the page (an outline, or an action by id with the page after). */
const shownPage = (history: { output?: string }[]) => {
  const output = history.filter((h) => h.output?.includes('\ndocument "')).at(-1)?.output;
  return output ? output.slice(output.indexOf("URL: ")) : "";
};

describe("agent: acting on the ids of the outline it read", () => {
  it("does the tea task with one model call per step and none inside its tools", async () => {
    model.use(teaAgentById());
    const client = await open("agent/search.html");
    const result = await client.agent().execute("Find the price of oolong tea");

    expect(result).toMatchObject({ success: true, completed: true, message: "The price is $6.40" });
    expect(result.actions.map((a) => a.type)).toEqual(["outline", "act", "act", "act", "done"]);
    expect(result.actions[1]).toMatchObject({ method: "fill", success: true });
    expect(result.actions[2]).toMatchObject({ method: "click", action: 'button "Search"' });
    expect(toolCalls()).toHaveLength(0);
    expect(turns()).toHaveLength(5);
    // Each action by id answered with the page after it: no outline call in between.
    const history = turns().at(-1)!.history;
    expect(history[1]!.output).toMatch(/^Done: fill on searchbox "Search teas"/);
    // An outline read earlier is cut to a line once a newer one came, with what was done.
    expect(history[0]!.output).not.toContain("Find a tea");
    expect(history[2]!.output).toMatch(/^Done: click on button "Search"\. \(The page's outline/);
    expect(history[3]!.output).toContain("$6.40");
    expect(client.context.activePage()!.url()).toBe(server.url("agent/item.html?id=oolong"));
  });

  it("does the workshop task on ids: pages, a dialog, a custom dropdown and a refusal", async () => {
    model.use(workshopByIdAgent());
    const client = await open("agent/workshops.html");
    const result = await client.agent().execute({
      instruction: WORKSHOP_TASK,
      variables: { email: "ada@example.com" },
      maxSteps: 30,
    });
    expect(result).toMatchObject({ success: true, completed: true });
    expect(result.message).toMatch(
      /^Registered for Saturday afternoon\. Confirmation code: TEA-\d{4}$/,
    );
    const page = client.context.activePage()!;
    expect(
      await page.evaluate(() => (window as unknown as { registered: unknown }).registered),
    ).toEqual({
      workshop: "advanced-blending",
      name: "Ada Lovelace",
      email: "ada@example.com",
      session: "Saturday afternoon",
    });
    expect(result.metadata?.steps).toBeGreaterThanOrEqual(10);
    expect(result.actions.filter((a) => a.type === "outline")).toHaveLength(1);
    expect(toolCalls()).toHaveLength(0);
    const sent = JSON.stringify(model.requests().map((r) => r.body));
    expect(sent).not.toContain("ada@example.com");
    expect(sent).toContain("Saturday morning is full");
  });

  it("refuses an id whose element changed since the outline, acts on nothing, and the model reads again", async () => {
    const script: StepScript = (turn) => {
      const page = shownPage(turn.history);
      const last = turn.history.at(-1);
      if (!last) return { calls: [call("outline")] };
      if (last.name === "outline" && turn.history.length === 1) {
        return { calls: [call("act", { id: idOfLine(page, 'button "Search"') })] };
      }
      if (last.name === "act" && last.output?.includes("no longer"))
        return { calls: [call("outline")] };
      return { calls: [call("done", { success: true, message: last.output?.slice(0, 60) ?? "" })] };
    };
    let swapped = false;
    model.use(
      // Before the model's second step arrives, the page puts another button where Search was.
      http.post("https://api.openai.com/v1/responses", async ({ request }) => {
        if (!swapped && resultsIn(await request.clone().json()) === 1) {
          swapped = true;
          await client.context.activePage()!.evaluate(() => {
            const old = document.querySelector("button[type=submit]")!;
            const other = document.createElement("button");
            other.type = "button";
            other.textContent = "Reset";
            other.onclick = () =>
              ((window as unknown as { resetClicked: boolean }).resetClicked = true);
            old.replaceWith(other);
          });
        }
        return undefined;
      }),
      openaiAgent(script),
    );
    const client = await open("agent/search.html");
    const result = await client.agent().execute("Search for anything");

    const act = result.actions[1]!;
    expect(act.type).toBe("act");
    expect(act.error).toMatch(
      /no longer the element the outline showed \(button "Search"; now button "Reset" is there\): nothing was done/,
    );
    expect(act.error).toContain("read it again with outline");
    expect(
      await client.context
        .activePage()!
        .evaluate(() => (window as unknown as { resetClicked?: boolean }).resetClicked),
    ).toBeUndefined();
    expect(result.actions.map((a) => a.type)).toEqual(["outline", "act", "outline", "done"]);
    expect(result.actions[2]!.pageText).toContain('button "Reset"');
  });

  it("refuses an id whose element is gone at once, without waiting for it", async () => {
    const script: StepScript = (turn) => {
      const last = turn.history.at(-1);
      if (!last) return { calls: [call("outline")] };
      if (turn.history.length === 1)
        return { calls: [call("act", { id: idOfLine(last.output ?? "", 'button "Search"') })] };
      return { calls: [call("done", { success: false, message: "gone" })] };
    };
    model.use(
      http.post("https://api.openai.com/v1/responses", async ({ request }) => {
        if (resultsIn(await request.clone().json()) === 1) {
          await client.context
            .activePage()!
            .evaluate(() => document.querySelector("button")?.remove());
        }
        return undefined;
      }),
      openaiAgent(script),
    );
    const client = await open("agent/search.html");
    const result = await client.agent().execute({ instruction: "Search", toolTimeout: 20_000 });
    const act = result.actions[1]!;
    expect(act.error).toMatch(
      /no longer the element the outline showed \(button "Search"; nothing is there now\)/,
    );
    // Not half the tool's time spent waiting for an element that is gone.
    expect(act.timeMs).toBeLessThan(5_000);
  });

  it("takes the ids of a step's calls from the outline the model answered on, not one read since", async () => {
    model.use(
      openaiAgent((turn) => {
        const page = shownPage(turn.history);
        if (!page) return { calls: [call("outline")] };
        if (turn.history.length === 1) {
          // Two calls in one answer, both on the ids of the outline read: the first moves
          // every button one place down.
          return {
            calls: [
              call("act", { id: idOfLine(page, 'button "Show a tip"') }),
              call("act", { id: idOfLine(page, 'button "Add a cup"') }),
            ],
          };
        }
        return { calls: [call("done", { success: true, message: "done" })] };
      }),
    );
    const client = await open("agent/counter.html");
    const result = await client.agent().execute("Show a tip and add a cup");
    const second = result.actions[2]!;
    expect(second.error).toMatch(
      /no longer the element the outline showed \(button "Add a cup"; now button "Dismiss tip" is there\)/,
    );
    const pw = client.context.activePage()!.playwrightPage;
    expect(
      await pw.evaluate(() => (window as unknown as { dismissed?: boolean }).dismissed),
    ).toBeUndefined();
    expect(await pw.textContent("#count")).toBe("0 cups");
  });

  it("tells the model which field its act by id lacks, and does nothing", async () => {
    model.use(
      openaiAgent((turn) => {
        const page = shownPage(turn.history);
        if (!page) return { calls: [call("outline")] };
        if (turn.history.length === 1) {
          return { calls: [call("act", { id: idOfLine(page, "searchbox"), method: "fill" })] };
        }
        return { calls: [call("done", { success: false, message: "no value" })] };
      }),
    );
    const client = await open("agent/search.html");
    const result = await client.agent().execute("Search");
    expect(result.actions[1]!.error).toMatch(/^Invalid input for act: .*value.*need a value/s);
  });

  it("says an outline is unchanged instead of sending it again, and keeps the one read", async () => {
    model.use(
      openaiAgent((turn) =>
        turn.history.length < 2
          ? { calls: [call("outline")] }
          : { calls: [call("done", { success: true, message: "read" })] },
      ),
    );
    const client = await open("agent/search.html");
    await client.agent().execute("Read the page twice");
    const last = turns().at(-1)!;
    expect(last.history[0]!.output).toContain('searchbox "Search teas"');
    expect(last.history[1]!.output).toBe(
      "The page has not changed since the outline you read last: it and its ids still hold.",
    );
  });

  it("fills a form by ids with %variables%, with no model call to find the fields", async () => {
    const SECRET = "pw-by-id-9876";
    model.use(
      openaiAgent((turn) => {
        const last = turn.history.at(-1);
        if (!last) return { calls: [call("outline")] };
        const page = shownPage(turn.history);
        if (last.name === "outline") {
          return {
            calls: [
              call("fillForm", {
                fields: [
                  { id: idOfLine(page, 'textbox "Name"'), value: "Ada" },
                  { id: idOfLine(page, 'textbox "Password"'), value: "%password%" },
                  { id: Number(idOfLine(page, 'textbox "Email"')), value: "%email%" },
                ],
              }),
            ],
          };
        }
        if (last.name === "fillForm")
          return { calls: [call("act", { id: idOfLine(page, 'button "Create account"') })] };
        return { calls: [call("done", { success: true, message: "Signed up" })] };
      }),
    );
    const client = await open("agent/signup.html");
    const result = await client.agent().execute({
      instruction: "Sign up",
      variables: { email: "ada@example.com", password: SECRET },
    });
    expect(result.success).toBe(true);
    expect(toolCalls()).toHaveLength(0);
    const received = await client.context
      .activePage()!
      .evaluate(() => (window as unknown as { received: unknown }).received);
    expect(received).toEqual({ email: "ada@example.com", password: SECRET, name: "Ada" });
    const fill = turns().at(-1)!.history[1]!;
    expect(fill.output).toMatch(/^All fields filled\./);
    expect(JSON.stringify([model.requests().map((r) => r.body), result])).not.toContain(SECRET);
  });
});

describe("agent: guardrails", () => {
  it("nudges a model that repeats a call on an unchanged page, then stops it (stoppedBy loop)", async () => {
    model.use(
      openaiAgent((turn) => {
        const page = shownPage(turn.history);
        if (!page) return { calls: [call("outline")] };
        return { calls: [call("act", { id: idOfLine(page, 'button "Does nothing"') })] };
      }),
    );
    const client = await open("agent/counter.html");
    const result = await client.agent().execute({ instruction: "Add cups", maxSteps: 20 });
    expect(result).toMatchObject({
      success: false,
      completed: false,
      metadata: { stoppedBy: "loop", steps: 5 },
    });
    expect(result.message).toMatch(
      /called act with the same input 4 times and the page did not change/,
    );
    const outputs = turns()
      .at(-1)!
      .history.map((h) => h.output ?? "");
    expect(outputs[2]).not.toContain("Note:");
    expect(outputs[3]).toContain(
      "Note: you have made this same call 3 times and the page has not changed",
    );
  });

  it("takes neither going back to a list between items nor scrolling on for a loop", async () => {
    model.use(
      openaiAgent((turn) => {
        const h = turn.history.length;
        const url = (file: string) => turn.task.match(/http\S+\/agent\//)![0] + file;
        // Five items opened from the list, each followed by the same `back`.
        const teas = ["green", "black", "white", "oolong", "greenjasmine"];
        if (h < 10) {
          return h % 2
            ? { calls: [call("back")] }
            : { calls: [call("goto", { url: url(`item.html?id=${teas[h / 2]}`) })] };
        }
        // Then down a long page, two screens at a time, past its end.
        if (h === 10) return { calls: [call("goto", { url: url("long.html") })] };
        return { calls: [call("scroll", { direction: "down", screens: 2 })] };
      }),
    );
    const client = await open("agent/results.html?q=tea");
    const result = await client.agent().execute({
      instruction: `Look at each tea, then read ${server.url("agent/long.html")}`,
      maxSteps: 40,
    });
    const types = result.actions.map((a) => a.type);
    // Every back returned to the same list, and was no loop.
    expect(types.filter((t) => t === "back")).toHaveLength(5);
    // The scrolls went on while the page moved; once at its end, they changed nothing.
    expect(result).toMatchObject({ completed: false, metadata: { stoppedBy: "loop" } });
    expect(result.message).toContain("called scroll with the same input 4 times");
    const scrolled = result.actions.filter((a) => a.type === "scroll");
    expect(scrolled.length).toBeGreaterThan(4);
  });

  it("does not take repeated calls that change the page for a loop", async () => {
    model.use(
      openaiAgent((turn) => {
        const page = shownPage(turn.history);
        if (!page) return { calls: [call("outline")] };
        if (page.includes("6 cups"))
          return { calls: [call("done", { success: true, message: "6 cups" })] };
        return { calls: [call("act", { id: idOfLine(page, 'button "Add a cup"') })] };
      }),
    );
    const client = await open("agent/counter.html");
    const result = await client.agent().execute({ instruction: "Add six cups", maxSteps: 20 });
    expect(result).toMatchObject({
      success: true,
      message: "6 cups",
      metadata: { stoppedBy: "done", steps: 8 },
    });
    expect(JSON.stringify(model.requests().map((r) => r.body))).not.toContain(
      "Note: you have made",
    );
  });

  it("stops after maxConsecutiveFailures failing calls in a row, saying why; a success resets the count", async () => {
    let n = 0;
    model.use(
      openaiAgent(() => {
        n++;
        // fail, fail, outline (a success), then failures until the cap.
        if (n === 3) return { calls: [call("outline")] };
        return { calls: [call("act", { action: `click the purple button number ${n}` })] };
      }),
      openaiResponses(() => ({ elements: [] })),
    );
    const client = await open("agent/counter.html");
    const result = await client
      .agent()
      .execute({ instruction: "Click purple", maxConsecutiveFailures: 3, maxSteps: 20 });
    expect(result).toMatchObject({
      success: false,
      completed: false,
      metadata: { stoppedBy: "failures", steps: 6 },
    });
    expect(result.message).toMatch(
      /^Stopped: 3 tool calls in a row failed \(maxConsecutiveFailures 3\)\. The last, act: Failed: No element matches/,
    );
  });

  it("tells the model when steps run low, and offers only done on the last step", async () => {
    model.use(
      openaiAgent((turn) => {
        if (turn.tools.length === 1)
          return {
            calls: [call("done", { success: false, message: "Out of steps: read the page only" })],
          };
        return { calls: [call("wait", { seconds: 0.01 + turn.history.length / 100 })] };
      }),
    );
    const client = await open("agent/counter.html");
    const result = await client.agent().execute({ instruction: "Wait around", maxSteps: 6 });
    expect(result).toMatchObject({
      success: false,
      completed: true,
      metadata: { stoppedBy: "done", steps: 6 },
    });
    const bodies = model.requestsTo("/responses").map((r) => JSON.stringify(r.body));
    const noted = bodies.map((b) => b.includes("3 steps are left, this one included (maxSteps 6)"));
    expect(noted).toEqual([false, false, false, true, true, true]);
    expect(turns().map((t) => t.tools.length === 1)).toEqual([
      false,
      false,
      false,
      false,
      false,
      true,
    ]);
  });

  it("refuses a maxConsecutiveFailures that is not a positive whole number, naming the field", async () => {
    model.use(http.post("https://api.openai.com/v1/responses", () => HttpResponse.error()));
    const client = await open("agent/counter.html");
    await expect(
      client.agent().execute({ instruction: "x", maxConsecutiveFailures: 0 }),
    ).rejects.toThrow(/at least 1 tool call → at agent\.execute\.maxConsecutiveFailures/);
  });
});

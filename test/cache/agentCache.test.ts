/**
 * The agent with cacheDir, on real Chromium with the model kit: the three-page task recorded
 * once and replayed with zero model requests; a results list in another order (the recorded link
 * now another tea's) is never clicked, heals with one act call and is written back; with
 * selfHeal off, or no model, the replay stops with nothing clicked; hybrid runs are not cached.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Client, LogLine } from "../../lib/index.js";
import { useClients } from "../support/clients.js";
import { failure } from "../support/failure.js";
import { call, openaiAgent } from "../support/llm/agentModel.js";
import { instructionOf, useModelServer } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { signupAgent, signupExecutionModel } from "../support/llm/signupAgent.js";
import { teaAgent, teaExecutionAnswer, teaExecutionModel } from "../support/llm/teaAgent.js";
import { freePort } from "../support/ports.js";
import { useStaticServer } from "../support/staticServer.js";
import { useTempFolders } from "../support/tempFolders.js";

const server = useStaticServer();
const model = useModelServer();
const clients = useClients();
const MODEL = { modelName: "openai/gpt-4.1-mini", apiKey: "sk-agent-cache-key-123456" };
const TASK = "Find the price of green tea";

const tempFolder = useTempFolders();
const cacheFolder = () => tempFolder("wayfarer-agent-cache-");
const entryIn = (cacheDir: string) => {
  const files = readdirSync(cacheDir);
  expect(files).toHaveLength(1);
  return JSON.parse(readFileSync(join(cacheDir, files[0]!), "utf8"));
};
const urlOf = (client: Client) => client.context.activePage()!.url();

/** The shop lists its results the other way round: Green jasmine tea first, where Green tea was. */
const reverseResults = (client: Client) =>
  client.context.activePage()!.evaluate(() => localStorage.setItem("results-order", "reversed"));

async function record(cacheDir: string) {
  model.use(teaAgent(), teaExecutionModel());
  const client = await clients.openOn(server.url("agent/search.html"), { model: MODEL, cacheDir });
  const result = await client.agent().execute(TASK);
  expect(result).toMatchObject({ success: true, message: "The price is $4.20" });
  expect(result.metadata?.cacheHit).toBe(false);
  return model.requests().length;
}

describe("the agent cache", () => {
  it("records the three-page task, then replays it with zero model requests", async () => {
    const cacheDir = cacheFolder();
    const asked = await record(cacheDir);
    expect(asked).toBeGreaterThan(4);
    const entry = entryIn(cacheDir);
    expect(entry).toMatchObject({ method: "agent", message: "The price is $4.20" });
    // The outline and extract calls only read: the steps are the three element actions.
    expect(entry.steps.map((s: { tool: string }) => s.tool)).toEqual(["act", "act", "act"]);
    expect(entry.steps[2]).toMatchObject({
      action: { method: "click" },
      identity: { role: "link", name: "Green tea" },
    });

    const lines: LogLine[] = [];
    const again = await clients.openOn(server.url("agent/search.html"), {
      model: MODEL,
      cacheDir,
      verbose: 1,
      logger: (l: LogLine) => lines.push(l),
    });
    const replayed = await again.agent().execute(TASK);
    expect(model.requests()).toHaveLength(asked);
    expect(replayed).toMatchObject({
      success: true,
      completed: true,
      message: "The price is $4.20",
      metadata: { cacheHit: true },
      usage: { input_tokens: 0, output_tokens: 0 },
    });
    expect(replayed.actions.map((a) => a.type)).toEqual(["act", "act", "act", "done"]);
    expect(urlOf(again)).toBe(server.url("agent/item.html?id=green"));
    expect((await again.metrics).agentPromptTokens).toBe(0);
    expect((await again.metrics).totalPromptTokens).toBe(0);
    expect(lines.map((l) => l.message)).toContain(
      "agent run replayed from the cache, no model call",
    );
  });

  it("never clicks another tea's link: the changed step heals with one act call and is written back", async () => {
    const cacheDir = cacheFolder();
    const asked = await record(cacheDir);
    const recorded = entryIn(cacheDir);

    const healing = await clients.openOn(server.url("agent/search.html"), {
      model: MODEL,
      cacheDir,
    });
    await reverseResults(healing);
    const result = await healing.agent().execute(TASK);
    // Green jasmine tea's link stood where Green tea's was recorded; Green tea's was clicked.
    expect(urlOf(healing)).toBe(server.url("agent/item.html?id=green"));
    expect(result).toMatchObject({ success: true, message: "The price is $4.20" });
    expect(result.metadata?.cacheHit).toBe(false);
    expect(result.actions.filter((a) => a.healed)).toHaveLength(1);
    // One act call found the link again; the agent's own model was not asked.
    const healRequests = model.requests().slice(asked);
    expect(healRequests).toHaveLength(1);
    expect(JSON.stringify(healRequests[0]!.body)).toContain('click the \\"Green tea\\" result');
    const healed = entryIn(cacheDir);
    expect(healed.steps[2].identity.name).toBe("Green tea");
    expect(healed.steps[2].action.selector).not.toBe(recorded.steps[2].action.selector);

    // The healed entry now replays on the reordered list with no model call.
    const third = await clients.openOn(server.url("agent/search.html"), {
      model: MODEL,
      cacheDir,
    });
    await reverseResults(third);
    const replayed = await third.agent().execute(TASK);
    expect(replayed.metadata?.cacheHit).toBe(true);
    expect(urlOf(third)).toBe(server.url("agent/item.html?id=green"));
    expect(model.requests()).toHaveLength(asked + 1);
  });

  it("hands the run to the agent where a heal fails, and writes the steps before and after", async () => {
    const cacheDir = cacheFolder();
    const asked = await record(cacheDir);
    let refused = 0;
    model.use(
      teaAgent(),
      openaiResponses((r) => {
        // The heal's one act call finds nothing; the agent's own act later finds the link.
        if (refused === 0 && instructionOf(r).includes('"Green tea" result')) {
          refused++;
          return { elements: [] };
        }
        return teaExecutionAnswer(r);
      }),
    );
    const client = await clients.openOn(server.url("agent/search.html"), {
      model: MODEL,
      cacheDir,
    });
    await reverseResults(client);
    const result = await client.agent().execute(TASK);
    expect(refused).toBe(1);
    expect(result).toMatchObject({ success: true, message: "The price is $4.20" });
    expect(result.metadata?.cacheHit).toBe(false);
    expect(urlOf(client)).toBe(server.url("agent/item.html?id=green"));
    // The two replayed steps, then the agent's own run from the results page.
    expect(result.actions.slice(0, 2).map((a) => a.instruction)).toEqual([
      "type green into the search field",
      "click the Search button",
    ]);
    expect(model.requests().length).toBeGreaterThan(asked + 1);
    // The failed heal's call and the agent's own count in the result.
    expect(result.metadata?.healed).toBe(true);
    expect(result.usage?.input_tokens).toBeGreaterThan(0);
    const rewritten = entryIn(cacheDir);
    expect(rewritten.steps.map((s: { tool: string }) => s.tool)).toEqual(["act", "act", "act"]);
    expect(rewritten.steps[2].identity.name).toBe("Green tea");
  });

  it("with selfHeal off, stops at the changed step with nothing clicked and no model call", async () => {
    const cacheDir = cacheFolder();
    const asked = await record(cacheDir);
    const client = await clients.openOn(server.url("agent/search.html"), {
      model: MODEL,
      cacheDir,
      selfHeal: false,
    });
    await reverseResults(client);
    const result = await client.agent().execute(TASK);
    expect(result).toMatchObject({
      success: false,
      completed: false,
      metadata: { cacheHit: false, stoppedBy: "cache" },
    });
    expect(result.message).toMatch(/stopped at step 3 \(act\).*not the one recorded/);
    expect(urlOf(client)).toMatch(/results\.html\?q=green$/);
    expect(model.requests()).toHaveLength(asked);
  });

  it("replays with no model configured, and says clearly when a step changed and cannot heal", async () => {
    const cacheDir = cacheFolder();
    await record(cacheDir);
    // The same model named, but no key for it here (as on a deployment without the key).
    const keyless = await clients.openOn(server.url("agent/search.html"), {
      cacheDir,
      model: MODEL.modelName,
    });
    const replayed = await keyless.agent().execute(TASK);
    expect(replayed).toMatchObject({ success: true, metadata: { cacheHit: true } });

    const changed = await clients.openOn(server.url("agent/search.html"), {
      cacheDir,
      model: MODEL.modelName,
    });
    await reverseResults(changed);
    const error = await failure(changed.agent().execute(TASK));
    expect(error.message).toMatch(/no model to find it again.*OPENAI_API_KEY.*Nothing was clicked/);
    expect(urlOf(changed)).toMatch(/results\.html\?q=green$/);
  });

  it("shares one entry between runs with other variable values, and never stores a value", async () => {
    const cacheDir = cacheFolder();
    model.use(signupAgent(), signupExecutionModel());
    const signUp = async (email: string, password: string) => {
      const client = await clients.openOn(server.url("agent/signup.html"), {
        model: MODEL,
        cacheDir,
      });
      const result = await client.agent().execute({
        instruction: "Sign up with my email and password, name Ada",
        variables: { email, password: { value: password, description: "the password" } },
      });
      expect(result.success).toBe(true);
      const received = await client.context
        .activePage()!
        .evaluate(() => (window as unknown as { received: unknown }).received);
      return { result, received };
    };
    const first = await signUp("ada@example.com", "first-secret-1");
    expect(first.received).toEqual({
      email: "ada@example.com",
      password: "first-secret-1",
      name: "Ada",
    });
    const asked = model.requests().length;
    const second = await signUp("grace@example.com", "second-secret-2");
    expect(second.result.metadata?.cacheHit).toBe(true);
    expect(second.received).toEqual({
      email: "grace@example.com",
      password: "second-secret-2",
      name: "Ada",
    });
    expect(model.requests()).toHaveLength(asked);
    const entry = entryIn(cacheDir);
    // fillForm's three fields and the click, each with its element's identity.
    expect(entry.steps.map((s: { tool: string }) => s.tool)).toEqual(["act", "act", "act", "act"]);
    const text = JSON.stringify(entry);
    expect(text).toContain("%password%");
    expect(text).not.toMatch(/first-secret|second-secret|example\.com/);
    expect(JSON.stringify(second.result)).not.toContain("second-secret-2");
  });

  it("replays goto, scroll, back and keys, and presses keys only where the focus was", async () => {
    const cacheDir = cacheFolder();
    const results = server.url("agent/results.html?q=black");
    model.use(
      openaiAgent((turn) => {
        const done = turn.history.map((h) => h.name);
        if (!done.includes("goto")) return { calls: [call("goto", { url: results })] };
        if (!done.includes("scroll")) return { calls: [call("scroll", { direction: "down" })] };
        if (!done.includes("back")) return { calls: [call("back")] };
        if (!done.includes("act"))
          return { calls: [call("act", { action: "type oolong into the search field" })] };
        if (!done.includes("keys")) return { calls: [call("keys", { keys: ["Enter"] })] };
        return { calls: [call("done", { success: true, message: "Searched for oolong" })] };
      }),
      teaExecutionModel(),
    );
    const task = "Look at black teas, then search for oolong";
    const first = await clients.openOn(server.url("agent/search.html"), { model: MODEL, cacheDir });
    expect((await first.agent().execute(task)).message).toBe("Searched for oolong");
    const asked = model.requests().length;
    const file = join(cacheDir, readdirSync(cacheDir)[0]!);
    const entry = JSON.parse(readFileSync(file, "utf8"));
    expect(entry.steps.map((s: { tool: string }) => s.tool)).toEqual([
      "goto",
      "scroll",
      "back",
      "act",
      "keys",
    ]);
    expect(entry.steps[4]).toMatchObject({
      input: { keys: ["Enter"] },
      focus: { role: "textbox", name: "Search teas" },
    });

    const again = await clients.openOn(server.url("agent/search.html"), { model: MODEL, cacheDir });
    const replayed = await again.agent().execute(task);
    expect(replayed).toMatchObject({ success: true, metadata: { cacheHit: true } });
    expect(replayed.actions.map((a) => a.type)).toEqual([
      "goto",
      "scroll",
      "back",
      "act",
      "keys",
      "done",
    ]);
    expect(urlOf(again)).toBe(server.url("agent/results.html?q=oolong"));
    expect(model.requests()).toHaveLength(asked);

    // Recorded as going to another field: nothing is pressed, and without selfHeal it stops.
    entry.steps[4].focus.name = "Another field";
    writeFileSync(file, JSON.stringify(entry));
    const strict = await clients.openOn(server.url("agent/search.html"), {
      model: MODEL,
      cacheDir,
      selfHeal: false,
    });
    const stopped = await strict.agent().execute(task);
    expect(stopped).toMatchObject({ success: false, metadata: { stoppedBy: "cache" } });
    expect(stopped.message).toMatch(/went to textbox "Another field".*Nothing was pressed/);
    expect(urlOf(strict)).toBe(server.url("agent/search.html"));
    expect(model.requests()).toHaveLength(asked);
  });

  it("refuses a recorded goto to a metadata address, as a run would", async () => {
    const cacheDir = cacheFolder();
    model.use(
      openaiAgent((turn) =>
        turn.history.length === 0
          ? { calls: [call("goto", { url: server.url("agent/item.html?id=green") })] }
          : { calls: [call("done", { success: true, message: "Opened" })] },
      ),
    );
    const first = await clients.openOn(server.url("agent/search.html"), { model: MODEL, cacheDir });
    await first.agent().execute("Open green tea");
    const file = join(cacheDir, readdirSync(cacheDir)[0]!);
    const entry = JSON.parse(readFileSync(file, "utf8"));
    // A committed cache someone changed: the rule applies to a replay as to a run.
    entry.steps[0].input.url = "http://169.254.169.254/latest/meta-data/";
    writeFileSync(file, JSON.stringify(entry));
    const client = await clients.openOn(server.url("agent/search.html"), {
      model: MODEL,
      cacheDir,
      selfHeal: false,
    });
    const result = await client.agent().execute("Open green tea");
    expect(result).toMatchObject({ success: false, metadata: { stoppedBy: "cache" } });
    expect(result.message).toMatch(/169\.254\.169\.254/);
    expect(urlOf(client)).toBe(server.url("agent/search.html"));
  });

  it("keeps a variable's value out of the entry and out of a replay's result", async () => {
    const cacheDir = cacheFolder();
    model.use(
      openaiAgent((turn) => {
        const done = turn.history.map((h) => h.name);
        if (!done.length)
          return { calls: [call("act", { action: "type %tea% into the search field" })] };
        if (done.length === 1)
          return { calls: [call("act", { action: "click the Search button" })] };
        return { calls: [call("done", { success: true, message: "Searched" })] };
      }),
      teaExecutionModel(),
    );
    const search = async (tea: string) => {
      const client = await clients.openOn(server.url("agent/search.html"), {
        model: MODEL,
        cacheDir,
      });
      const result = await client
        .agent()
        .execute({ instruction: "Search for %tea%", variables: { tea } });
      return { result, url: urlOf(client) };
    };
    await search("jasmine");
    const second = await search("oolong");
    expect(second.result.metadata?.cacheHit).toBe(true);
    expect(second.url).toBe(server.url("agent/results.html?q=oolong"));
    // The page's URL carries the value; the result shows its %name%.
    expect(second.result.actions[1]!.pageUrl).toBe(server.url("agent/results.html?q=%tea%"));
    expect(JSON.stringify(second.result)).not.toContain("oolong");
    expect(readFileSync(join(cacheDir, readdirSync(cacheDir)[0]!), "utf8")).not.toMatch(
      /jasmine|oolong/,
    );
  });

  it("records a run whose model once named no tool, and not one whose goto failed once started", async () => {
    const cacheDir = cacheFolder();
    const closed = `http://127.0.0.1:${await freePort()}/`;
    model.use(
      openaiAgent((turn) => {
        const done = turn.history.map((h) => h.name);
        if (turn.task.includes("slip") && !done.length) return { calls: [call("teleport")] };
        if (turn.task.includes("closed") && !done.length)
          return { calls: [call("goto", { url: closed })] };
        if (!done.includes("back")) return { calls: [call("back")] };
        return { calls: [call("done", { success: true, message: "Done" })] };
      }),
    );
    const client = await clients.openOn(server.url("agent/search.html"), {
      model: MODEL,
      cacheDir,
    });
    const slipped = await client.agent().execute("Go back after a slip");
    expect(slipped.success).toBe(true);
    expect(readdirSync(cacheDir)).toHaveLength(1);
    const failed = await client.agent().execute("Go back after a closed port");
    expect(failed.success).toBe(true);
    expect(failed.actions[0]!.error).toBeDefined();
    // The failed goto may have moved the page: that run is not written.
    expect(readdirSync(cacheDir)).toHaveLength(1);
  });

  it("stops a replay at the caller's signal, a recorded wait included", async () => {
    const cacheDir = cacheFolder();
    model.use(
      openaiAgent((turn) =>
        turn.history.length === 0
          ? { calls: [call("wait", { seconds: 0.2 })] }
          : { calls: [call("done", { success: true, message: "Waited" })] },
      ),
    );
    const first = await clients.openOn(server.url("agent/search.html"), { model: MODEL, cacheDir });
    expect((await first.agent().execute("Wait for the page")).message).toBe("Waited");
    const file = join(cacheDir, readdirSync(cacheDir)[0]!);
    const entry = JSON.parse(readFileSync(file, "utf8"));
    expect(entry.steps).toEqual([{ tool: "wait", input: { seconds: 0.2 } }]);
    // A committed entry whose wait is long: the caller's signal ends it early.
    entry.steps[0].input.seconds = 30;
    writeFileSync(file, JSON.stringify(entry));

    const client = await clients.openOn(server.url("agent/search.html"), {
      model: MODEL,
      cacheDir,
    });
    const started = Date.now();
    const result = await client
      .agent()
      .execute({ instruction: "Wait for the page", signal: AbortSignal.timeout(300) });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({
      success: false,
      completed: false,
      metadata: { stoppedBy: "aborted" },
    });
  });

  it("does not cache hybrid runs, which act by screen coordinates", async () => {
    const cacheDir = cacheFolder();
    model.use(teaAgent(), teaExecutionModel());
    const run = async () => {
      const client = await clients.openOn(server.url("agent/search.html"), {
        model: MODEL,
        cacheDir,
      });
      return client.agent({ mode: "hybrid" }).execute(TASK);
    };
    await run();
    const asked = model.requests().length;
    const second = await run();
    expect(second).toMatchObject({ success: true, message: "The price is $4.20" });
    expect(model.requests().length).toBe(asked * 2);
    expect(readdirSync(cacheDir)).toEqual([]);
  });
});

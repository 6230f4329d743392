/**
 * A longer task than the tea search: twenty-odd steps over a paged list, a modal dialog, a
 * custom dropdown and a refusal the agent must recover from (the session it chose is full). The
 * model is scripted in words (test/support/llm/workshopAgent.ts); the same task as a plain
 * Playwright script (bench/workshopScript.ts) is checked against the same page.
 */
import { describe, expect, it } from "vitest";
import { workshopScript } from "../../bench/workshopScript.js";
import { useClients } from "../support/clients.js";
import { readAgentTurn } from "../support/llm/agentModel.js";
import { useModelServer } from "../support/llm/modelServer.js";
import {
  WORKSHOP_TASK,
  workshopExecutionModel,
  workshopWordsAgent,
} from "../support/llm/workshopAgent.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const clients = useClients();
const EMAIL = "ada@example.com";

const open = (file: string) =>
  clients.openOn(server.url(file), {
    model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-workshop-test-123456" },
  });

/** The registration the dialog shows, and its code. */
async function shownRegistration(client: Awaited<ReturnType<typeof open>>) {
  const page = client.context.activePage()!;
  const text = await page.evaluate(() => document.getElementById("confirmation")?.textContent);
  return { text: text ?? "", code: text?.match(/TEA-\d{4}/)?.[0] };
}

describe("agent: the workshop sign-up", () => {
  it("pages to the workshop, registers, recovers from a full session and reads the code", async () => {
    model.use(workshopWordsAgent(), workshopExecutionModel());
    const client = await open("agent/workshops.html");
    const result = await client.agent().execute({
      instruction: WORKSHOP_TASK,
      variables: { email: EMAIL },
      maxSteps: 40,
    });

    expect(result).toMatchObject({ success: true, completed: true });
    const shown = await shownRegistration(client);
    expect(shown.text).toContain(
      "You are registered for Advanced Tea Blending, Saturday afternoon.",
    );
    expect(shown.code).toBeDefined();
    expect(result.message).toBe(
      `Registered for Saturday afternoon. Confirmation code: ${shown.code}`,
    );
    // The page received the variable's value, typed by the program.
    const page = client.context.activePage()!;
    expect(page.url()).toBe(server.url("agent/workshop.html?id=advanced-blending"));
    expect(
      await page.evaluate(() => (window as unknown as { registered: unknown }).registered),
    ).toEqual({
      workshop: "advanced-blending",
      name: "Ada Lovelace",
      email: EMAIL,
      session: "Saturday afternoon",
    });

    // The recovery: an outline showed the refusal, and the agent acted on it.
    const types = result.actions.map((a) => a.type);
    const refused = result.actions.findIndex(
      (a) => a.type === "outline" && a.pageText?.includes("Saturday morning is full"),
    );
    expect(refused).toBeGreaterThan(0);
    expect(result.actions[refused + 1]).toMatchObject({
      type: "act",
      instruction: "click the Session dropdown",
    });
    expect(result.actions.slice(refused).map((a) => a.instruction)).toContain(
      "click the Saturday afternoon option",
    );
    expect(types.length).toBeGreaterThanOrEqual(10);
    expect(types.filter((t) => t === "act").length).toBeGreaterThanOrEqual(8);
    expect(types).toContain("fillForm");
    expect(types.at(-1)).toBe("done");

    // The model saw the email's token, never its value: not in a step, not in an outline.
    const sent = JSON.stringify(model.requests().map((r) => r.body));
    expect(sent).toContain("%email%");
    expect(sent).not.toContain(EMAIL);
    const steps = model
      .requestsTo("/responses")
      .filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0);
    expect(steps).toHaveLength(types.length);
    const outlines = steps.flatMap((r) =>
      readAgentTurn(r).history.filter((h) => h.name === "outline"),
    );
    expect(outlines.some((o) => o.output?.includes('value="%email%"'))).toBe(true);
  });

  it("does the same task as a plain Playwright script", async () => {
    const client = await open("agent/workshops.html");
    const code = await workshopScript(client.context.activePage()!.playwrightPage);
    const shown = await shownRegistration(client);
    expect(shown.text).toContain("Saturday afternoon");
    expect(code).toBe(shown.code);
  });
});

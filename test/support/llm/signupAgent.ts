/**
 * A scripted agent for the sign-up form (test/fixtures/agent/signup.html): it reads the page,
 * fills Name, Email and Password in one fillForm (in another order than the page's, with
 * %email% and %password% tokens), clicks Create account and finishes. The tools' own calls are
 * answered by signupExecutionModel: each field found by its label in the outline the request
 * carries, in page order, with the value the request asked for.
 */
import type { RequestHandler } from "msw";
import { call, openaiAgent } from "./agentModel.js";
import { idOfLine, promptOf } from "./modelServer.js";
import { openaiResponses } from "./openai.js";

export function signupAgent(): RequestHandler {
  return openaiAgent((turn) => {
    const last = turn.history.at(-1);
    if (!last) return { calls: [call("outline")] };
    if (last.name === "outline") {
      return {
        calls: [
          call("fillForm", {
            // Asked in another order than the page's: pairing must not go by position.
            fields: [
              { field: "Name", value: "Ada" },
              { field: "Email", value: "%email%" },
              { field: "Password", value: "%password%" },
            ],
          }),
        ],
      };
    }
    if (last.name === "fillForm")
      return { calls: [call("act", { action: "click Create account" })] };
    return { calls: [call("done", { success: true, message: "Signed up" })] };
  });
}

export function signupExecutionModel(): RequestHandler {
  return openaiResponses((r) => {
    const prompt = promptOf(r);
    if (prompt.includes("form fields below")) {
      // One element per field listed ("2. Email: %email%"), in page order, as a model might.
      const asked = new Map(
        [...prompt.matchAll(/^\d+\. (\w+): (.*)$/gm)].map((m) => [m[1]!, m[2]!]),
      );
      return {
        elements: ["Email", "Password", "Name"].map((label) => ({
          elementId: idOfLine(prompt, `textbox "${label}"`),
          description: `${label} field`,
          method: "fill",
          arguments: [asked.get(label) ?? ""],
        })),
      };
    }
    return {
      elements: [
        {
          elementId: idOfLine(prompt, 'button "Create account"'),
          description: "Create account",
          method: "click",
          arguments: [],
        },
      ],
    };
  });
}

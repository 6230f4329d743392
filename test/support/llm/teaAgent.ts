/**
 * A scripted agent for the tea search pages (test/fixtures/agent/): it reads the page through
 * the outline tool and decides each step from what the last tool returned, as a real model
 * would: search for the tea, open its result, read the price, finish. The tools' own act and
 * extract calls are answered by teaExecutionModel, from the outline they carry.
 */
import type { RequestHandler } from "msw";
import { type AgentTurn, call, openaiAgent, type StepAnswer } from "./agentModel.js";
import { idOfLine, instructionOf, promptOf } from "./modelServer.js";
import { type Answer, openaiResponses } from "./openai.js";

export function teaAgentStep(turn: AgentTurn): StepAnswer {
  const tea = turn.task.match(/price of (.+?) tea/i)?.[1]?.toLowerCase() ?? "green";
  const last = turn.history.at(-1);
  if (!last) return { calls: [call("outline")] };
  if (last.name === "outline" && last.output?.includes("Find a tea")) {
    return { calls: [call("act", { action: `type ${tea} into the search field` })] };
  }
  if (last.name === "act" && String(last.input.action).startsWith("type")) {
    return { calls: [call("act", { action: "click the Search button" })] };
  }
  if (last.name === "act" && String(last.input.action).includes("Search button")) {
    return { calls: [call("outline")] };
  }
  if (last.name === "outline" && last.output?.includes("results for")) {
    // The tea of that exact name, else the first whose name starts with it.
    const name =
      last.output.match(new RegExp(`link "(${tea} tea)"`, "i"))?.[1] ??
      last.output.match(new RegExp(`link "(${tea}[^"]*)"`, "i"))?.[1];
    if (!name) return { calls: [call("done", { success: false, message: `no ${tea} tea found` })] };
    return { calls: [call("act", { action: `click the "${name}" result` })] };
  }
  if (last.name === "act" && String(last.input.action).includes("result")) {
    return { calls: [call("extract", { instruction: "the price of the tea on this page" })] };
  }
  if (last.name === "extract") {
    const price = last.output?.match(/\$\d+\.\d\d/)?.[0];
    return {
      text: "I have the price.",
      calls: [
        call("done", { success: Boolean(price), message: `The price is ${price ?? "unknown"}` }),
      ],
    };
  }
  return { calls: [call("outline")] };
}

export function teaAgent(baseURL?: string): RequestHandler {
  return openaiAgent(teaAgentStep, baseURL);
}

/** act and extract inside the agent's tools: the element, or the price, the prompt asks for. */
export function teaExecutionModel(baseURL?: string): RequestHandler {
  return openaiResponses(teaExecutionAnswer, baseURL);
}

export const teaExecutionAnswer: Answer = (request) => {
  const prompt = promptOf(request);
  if (!JSON.stringify(request.body).includes('"elements"')) {
    return { extraction: prompt.match(/\$\d+\.\d\d/)?.[0] ?? "" };
  }
  const instruction = instructionOf(request);
  const element = (line: string, method: string, args: string[] = []) => {
    const id = idOfLine(prompt, line);
    return id ? [{ elementId: id, description: line, method, arguments: args }] : [];
  };
  const typed = instruction.match(/type (\S+) into the search field/);
  if (typed) return { elements: element("searchbox", "fill", [typed[1]!]) };
  if (instruction.includes("Search button"))
    return { elements: element('button "Search"', "click") };
  const result = instruction.match(/click the "([^"]+)" result/);
  if (result) return { elements: element(`link "${result[1]}"`, "click") };
  return { elements: [] };
};

/**
 * The same task by a model that acts on the ids of the outline it read: an action by id
 * answers with the page after it, so it reads the outline once and calls no other model.
 */
export function teaAgentByIdStep(turn: AgentTurn): StepAnswer {
  const tea = turn.task.match(/price of (.+?) tea/i)?.[1]?.toLowerCase() ?? "green";
  const last = turn.history.at(-1);
  const page = last?.output ?? "";
  if (!last || !page.includes("URL: ")) return { calls: [call("outline")] };
  const price = page.match(/\$\d+\.\d\d/)?.[0];
  if (page.includes("item.html") && price) {
    return {
      text: "I have the price.",
      calls: [call("done", { success: true, message: `The price is ${price}` })],
    };
  }
  if (page.includes("results for")) {
    const name =
      page.match(new RegExp(`link "(${tea} tea)"`, "i"))?.[1] ??
      page.match(new RegExp(`link "(${tea}[^"]*)"`, "i"))?.[1];
    if (!name) return { calls: [call("done", { success: false, message: `no ${tea} tea found` })] };
    return { calls: [call("act", { id: idOfLine(page, `link "${name}"`) })] };
  }
  const box = idOfLine(page, "searchbox");
  if (box && !page.includes(`value="${tea}"`)) {
    return { calls: [call("act", { id: box, method: "fill", value: tea })] };
  }
  return { calls: [call("act", { id: idOfLine(page, 'button "Search"'), method: "click" })] };
}

export function teaAgentById(baseURL?: string): RequestHandler {
  return openaiAgent(teaAgentByIdStep, baseURL);
}

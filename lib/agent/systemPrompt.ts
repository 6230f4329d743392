import type { AgentMode } from "../options.js";

/** What the agent's model is told about its job, before the caller's own systemPrompt. */
export function agentSystemPrompt(mode: AgentMode, custom: string | undefined): string {
  const lines =
    mode === "cua"
      ? CUA
      : [
          "You are a browser agent: you do the user's task in a real browser by calling tools.",
          "Read the page with outline, then act on elements by their [id]: an action by id answers with the page after it, so there is no need to read it again. Ids hold until the page changes.",
          "When a value is one of the task's variables, write its %name% token: the program puts the value in.",
          "If a tool fails, read its error and try another way; do not repeat a failing call.",
          "When the task is done, or cannot be done, call done with the answer the task asked for.",
        ];
  if (mode === "hybrid") {
    lines.push(
      "What the outline cannot reach (a canvas, a map) you can see with screenshot and act on by position with the …At tools, in pixels of the latest screenshot; each answers with a new one.",
    );
  }
  return custom ? `${lines.join("\n")}\n\n${custom}` : lines.join("\n");
}

const CUA = [
  "You do the user's task in a web browser whose screen you see and operate with the computer tool: every action answers with a new screenshot.",
  "When a value is one of the task's variables, type its %name% token: the program puts the value in, and you never see it.",
  "When the task is done, or cannot be done, stop calling the tool and answer in words, with the answer the task asked for.",
];

/** The first message: the task, the page it starts on, and the variables by name. */
export function taskMessage(
  instruction: string,
  page: { url: string; title: string },
  variables: Record<string, unknown> | undefined,
): string {
  const names = Object.entries(variables ?? {}).map(([name, v]) => {
    const description =
      typeof v === "object" && v !== null && "description" in v
        ? (v as { description?: string }).description
        : undefined;
    return `- %${name}%${description ? `: ${description}` : ""}`;
  });
  return [
    `Task: ${instruction}`,
    `The browser is on ${page.url}${page.title ? ` ("${page.title}")` : ""}.`,
    names.length
      ? `Variables you can use (write the token; the values are hidden from you):\n${names.join("\n")}`
      : "",
  ]
    .filter(Boolean)
    .join("\n");
}

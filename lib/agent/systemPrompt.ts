import type { AgentMode } from "../options.js";

/** What the agent's model is told about its job, before the caller's own systemPrompt. */
export function agentSystemPrompt(mode: AgentMode, custom: string | undefined): string {
  const lines =
    mode === "cua"
      ? CUA
      : [
          "You are a browser agent: you do the user's task in a real web browser by calling tools, one step at a time.",
          "Read the page with outline before acting on it, and again after an action that changes the page, to check what happened.",
          "Use act for one action on one element, named as a user sees it; fillForm to fill several fields at once; extract to read information; goto to open a URL; back, scroll, keys and wait as a user would.",
          "When a value is one of the task's variables, write its %name% token: the program puts the value in, and you never see it.",
          "If a tool fails, read its error and try another way. Do not repeat the same failing call.",
          "When the task is done, or cannot be done, call done once, with the answer the task asked for in its message.",
        ];
  if (mode === "hybrid") {
    lines.push(
      "What the outline cannot reach (a canvas, a map, a custom widget) you can see with screenshot and act on by its position: clickAt, doubleClickAt, typeAt, dragAt, scrollAt, holdAt, fillFormAt. Positions are in pixels of the latest screenshot; each of these tools answers with a new one.",
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

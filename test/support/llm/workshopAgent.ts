/**
 * A scripted agent for the workshop sign-up pages (test/fixtures/agent/workshops.html,
 * workshop.html), in words: each step is decided from the conversation alone (the task and what
 * the last tool returned), as a model would: page through the list until the workshop shows,
 * open it, open the registration dialog, fill it, pick a session from the custom dropdown,
 * confirm, and when the session is full pick the next one the task allows. No step count or id
 * is fixed: a page that shows things in another order or on another page still works. The
 * tools' own act and fillForm calls are answered by workshopExecutionModel, from the outline
 * their requests carry.
 */
import type { RequestHandler } from "msw";
import {
  type AgentTurn,
  call,
  openaiAgent,
  type StepAnswer,
  type StepScript,
} from "./agentModel.js";
import { idOfLine, instructionOf, promptOf } from "./modelServer.js";
import { type Answer, openaiResponses } from "./openai.js";

export const WORKSHOP_TASK =
  "Register Ada Lovelace (email %email%) for the Advanced Tea Blending workshop, Saturday morning session or, if that is full, Saturday afternoon. Tell me the confirmation code.";

/** What the task asks for, read from its words. */
interface Goal {
  person: string;
  workshop: string;
  /** The sessions the task accepts, best first. */
  sessions: string[];
}

function goalOf(task: string): Goal {
  const sessions = task.match(/, (\w+ \w+) session or, if that is full, (\w+ \w+)\./);
  return {
    person: task.match(/Register (.+?) \(/)?.[1] ?? "",
    workshop: task.match(/for the (.+?) workshop/)?.[1] ?? "",
    sessions: sessions ? [sessions[1]!, sessions[2]!] : [],
  };
}

const outline = (): StepAnswer => ({ calls: [call("outline")] });
const act = (action: string, text?: string): StepAnswer => ({
  text,
  calls: [call("act", { action })],
});

export const workshopWordsStep: StepScript = (turn) => {
  const last = turn.history.at(-1);
  if (!last) return outline();
  if (last.name === "outline")
    return giveUpRepeating(fromPage(goalOf(turn.task), latestPage(turn), turn), turn);
  // A tool that failed or threw (anything but a success's first word): look at the page again
  // rather than go on blindly.
  if (!/^(Done|All fields filled)\b/.test(last.output ?? "")) return outline();
  const action = String(last.input.action ?? "");
  // The form filled: the session comes next, from the dropdown the dialog showed.
  if (last.name === "fillForm") return act("click the Session dropdown");
  // A session chosen: confirm it.
  if (/ option$/.test(action)) return act("click the Confirm registration button");
  // Anything else changed the page: read what it shows now.
  return outline();
};

/**
 * The latest outline that shows the page: an outline tool may answer that the page has not
 * changed since the last one, which then still holds.
 */
function latestPage(turn: AgentTurn): string {
  const outlines = turn.history.filter(
    (h) => h.name === "outline" && h.output?.includes('document "'),
  );
  return outlines.at(-1)?.output ?? "";
}

/** An action that already failed twice is not tried a third time: the run ends, saying why. */
function giveUpRepeating(next: StepAnswer, turn: AgentTurn): StepAnswer {
  const action = next.calls[0]?.input.action;
  const failures = turn.history.filter(
    (h) => h.name === "act" && h.input.action === action && !h.output?.startsWith("Done"),
  );
  if (action === undefined || failures.length < 2) return next;
  return {
    calls: [
      call("done", {
        success: false,
        message: `"${action}" kept failing: ${failures.at(-1)!.output}`,
      }),
    ],
  };
}

/** The run's last step once the page shows the registration: done, with its code. */
function registeredAnswer(page: string): StepAnswer | undefined {
  const code = page.match(/confirmation code is (TEA-\d{4})/)?.[1];
  if (!code) return undefined;
  const session = page.match(/You are registered for [^,]+, (\w+ \w+)\./)?.[1] ?? "a session";
  return {
    text: "The registration went through.",
    calls: [
      call("done", {
        success: true,
        message: `Registered for ${session}. Confirmation code: ${code}`,
      }),
    ],
  };
}

/** The next step from what the latest outline shows. */
function fromPage(goal: Goal, page: string, turn: AgentTurn): StepAnswer {
  const registered = registeredAnswer(page);
  if (registered) return registered;
  if (/^\s*dialog "Register for /m.test(page)) return inDialog(goal, page, turn);
  if (page.includes(`link "Details of ${goal.workshop}"`)) {
    return act(`click the "Details of ${goal.workshop}" link`);
  }
  if (page.includes(`heading "${goal.workshop}"`) && page.includes('button "Register"')) {
    return act("click the Register button");
  }
  // Not on this page of the list: the next one.
  if (page.includes('link "Next"')) return act("click the Next link");
  return {
    calls: [call("done", { success: false, message: `I could not find ${goal.workshop}.` })],
  };
}

/** In the registration dialog: fill it, choose a session, confirm. */
function inDialog(goal: Goal, page: string, turn: AgentTurn): StepAnswer {
  // Sessions any page so far said were full.
  const full = new Set(
    turn.history.flatMap((h) =>
      [...(h.output ?? "").matchAll(/(\w+ \w+) is full/g)].map((m) => m[1]!),
    ),
  );
  const wanted = goal.sessions.find((s) => !full.has(s));
  if (!wanted) {
    return {
      calls: [
        call("done", {
          success: false,
          message: `Every session I may choose is full: ${[...full]}`,
        }),
      ],
    };
  }
  const listOpen = /^\s*listbox /m.test(page);
  if (listOpen) return act(`click the ${wanted} option`);
  if (!/textbox "Full name" value=/.test(page) || !/textbox "Email" value=/.test(page)) {
    return {
      calls: [
        call("fillForm", {
          fields: [
            { field: "Full name", value: goal.person },
            { field: "Email", value: "%email%" },
          ],
        }),
      ],
    };
  }
  const chosen = page.match(/combobox "Session ([^"]*)"/)?.[1];
  if (chosen !== wanted) {
    const why = chosen && full.has(chosen) ? `${chosen} is full; I choose ${wanted}.` : undefined;
    return act("click the Session dropdown", why);
  }
  return act("click the Confirm registration button");
}

/**
 * The same task by a model that acts on the ids of the outline it read: each action by id
 * answers with the page after it, so it reads the outline once, then only acts; the tools
 * call no model of their own.
 */
export const workshopByIdStep: StepScript = (turn) => {
  const last = turn.history.at(-1);
  const page = latestShownPage(turn);
  // Nothing read yet, or an action that failed (a stale id): read the page as it is.
  if (
    !last ||
    !page ||
    !/^(Done|All fields filled|The page has not changed|URL: )/.test(last.output ?? "")
  ) {
    return outline();
  }
  const goal = goalOf(turn.task);
  const byId = (line: string, input: Record<string, unknown> = {}, text?: string): StepAnswer => {
    const id = idOfLine(page, line);
    return id ? { text, calls: [call("act", { id, ...input })] } : outline();
  };
  const registered = registeredAnswer(page);
  if (registered) return registered;
  if (/^\s*dialog "Register for /m.test(page)) {
    const full = new Set(
      turn.history.flatMap((h) =>
        [...(h.output ?? "").matchAll(/(\w+ \w+) is full/g)].map((m) => m[1]!),
      ),
    );
    const wanted = goal.sessions.find((s) => !full.has(s));
    if (!wanted) {
      return {
        calls: [call("done", { success: false, message: "Every session I may choose is full" })],
      };
    }
    if (/^\s*listbox /m.test(page)) return byId(`option "${wanted}"`);
    if (!/textbox "Full name" value=/.test(page) || !/textbox "Email" value=/.test(page)) {
      const name = idOfLine(page, 'textbox "Full name"');
      const email = idOfLine(page, 'textbox "Email"');
      if (!name || !email) return outline();
      return {
        calls: [
          call("fillForm", {
            fields: [
              { id: name, value: goal.person },
              { id: email, value: "%email%" },
            ],
          }),
        ],
      };
    }
    const chosen = page.match(/combobox "Session ([^"]*)"/)?.[1];
    if (chosen !== wanted) {
      const why = chosen && full.has(chosen) ? `${chosen} is full; I choose ${wanted}.` : undefined;
      return byId('combobox "Session', {}, why);
    }
    return byId('button "Confirm registration"');
  }
  if (page.includes(`link "Details of ${goal.workshop}"`)) {
    return byId(`link "Details of ${goal.workshop}"`);
  }
  if (page.includes(`heading "${goal.workshop}"`) && page.includes('button "Register"')) {
    return byId('button "Register"');
  }
  if (page.includes('link "Next"')) return byId('link "Next"');
  return {
    calls: [call("done", { success: false, message: `I could not find ${goal.workshop}.` })],
  };
};

/** The page as the model last saw it: the latest result that carried an outline. */
function latestShownPage(turn: AgentTurn): string {
  const output = turn.history.filter((h) => h.output?.includes('\ndocument "')).at(-1)?.output;
  // From its URL line on: the line before says what was done, not what the page shows.
  return output ? output.slice(output.indexOf("URL: ")) : "";
}

export function workshopByIdAgent(baseURL?: string): RequestHandler {
  return openaiAgent(workshopByIdStep, baseURL);
}

export function workshopWordsAgent(baseURL?: string): RequestHandler {
  return openaiAgent(workshopWordsStep, baseURL);
}

/** act and fillForm inside the agent's tools: the elements their instruction names. */
export function workshopExecutionModel(baseURL?: string): RequestHandler {
  return openaiResponses(workshopExecutionAnswer, baseURL);
}

/** "click the Next link" → the role a kind of element has in the outline. */
const ROLES: Record<string, string> = {
  link: "link",
  button: "button",
  option: "option",
  dropdown: "combobox",
};

export const workshopExecutionAnswer: Answer = (request) => {
  const prompt = promptOf(request);
  if (!JSON.stringify(request.body).includes('"elements"')) {
    return { extraction: prompt.match(/confirmation code is (TEA-\d{4})/)?.[1] ?? "" };
  }
  if (prompt.includes("form fields below")) {
    // "1. Full name: Ada Lovelace": each field by its label, with the value asked for.
    const fields = [...prompt.matchAll(/^\d+\. ([^:\n]+): (.*)$/gm)];
    return {
      elements: fields.flatMap(([, label, value]) => {
        const id = idOfLine(prompt, `textbox "${label}"`);
        return id
          ? [{ elementId: id, description: `${label} field`, method: "fill", arguments: [value!] }]
          : [];
      }),
    };
  }
  const asked = instructionOf(request).match(/click the "?(.+?)"? (link|button|option|dropdown)\b/);
  if (!asked) return { elements: [] };
  const [, name, kind] = asked;
  // A dropdown's name goes on with what it shows ("Session Saturday morning"): its start.
  const line = kind === "dropdown" ? `combobox "${name}` : `${ROLES[kind!]} "${name}"`;
  const id = idOfLine(prompt, line);
  return {
    elements: id
      ? [{ elementId: id, description: `${name} ${kind}`, method: "click", arguments: [] }]
      : [],
  };
};

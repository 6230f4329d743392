/**
 * Typed values against a page that repeats them everywhere (its text, a label, a button's name,
 * a read-only field, its title, a line long enough to be cut into chunks) and a model that copies
 * whatever it reads into its answers. Random values of printable characters, quotes, backslashes,
 * angle brackets, percent signs and runs of spaces included: none may show, in any form the
 * value can take, in a model request, a log line, history, an inference file, a stream event or
 * a result. The seed is printed with a failure, to reproduce it.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { LogLine } from "../../lib/index.js";
import { ENGINE, useClients } from "../support/clients.js";
import { call, lastOutput, openaiAgent } from "../support/llm/agentModel.js";
import {
  idOfLine,
  instructionOf,
  type ModelRequest,
  promptOf,
  useModelServer,
} from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { seededRandom } from "../support/random.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const clients = useClients();
const KEY = "sk-fuzz-test-key-123456";

/** The characters escaping and quoting treat specially, and any printable ASCII besides. */
const SPECIAL = ['"', "\\", "<", ">", "&", "'", "%", "  ", "/", "`", "{", "}", "[", "]", "+"];

function randomValue(random: () => number): string {
  const length = 10 + Math.floor(random() * 14);
  let value = "";
  while (value.length < length) {
    value +=
      random() < 0.35
        ? SPECIAL[Math.floor(random() * SPECIAL.length)]
        : String.fromCharCode(0x21 + Math.floor(random() * 94));
  }
  // At least one quote and one backslash in every value, where the escaping leaks began.
  const at = 1 + Math.floor(random() * (value.length - 2));
  return `${value.slice(0, at)}"\\${value.slice(at)}`;
}

/** Every string inside `value`, and inside any JSON text a string holds (tool arguments). */
function* stringsIn(value: unknown): Generator<string> {
  if (typeof value === "string") {
    yield value;
    const t = value.trim();
    if ((t.startsWith("{") || t.startsWith("[")) && t.length < 2_000_000) {
      try {
        yield* stringsIn(JSON.parse(t));
      } catch {
        // Not JSON: the string itself was searched.
      }
    }
  } else if (Array.isArray(value)) {
    for (const v of value) yield* stringsIn(v);
  } else if (value && typeof value === "object") {
    for (const v of Object.values(value)) yield* stringsIn(v);
  }
}

/** The forms a leaked value would take: as typed, white space collapsed, JSON-escaped. */
function leakForms(value: string): string[] {
  const collapsed = value.replace(/\s+/g, " ").trim();
  return [...new Set([value, collapsed].flatMap((v) => [v, JSON.stringify(v).slice(1, -1)]))];
}

function leaksIn(where: string, value: unknown, secrets: string[]): string[] {
  const found: string[] = [];
  for (const text of stringsIn(value)) {
    for (const secret of secrets) {
      if (leakForms(secret).some((form) => text.includes(form))) {
        found.push(`${where}: ${JSON.stringify(secret)} in ${JSON.stringify(text.slice(0, 300))}`);
      }
    }
  }
  return found;
}

/** The line of the prompt the page's echo is on: what an obedient model copies. */
function echoLine(request: ModelRequest): string {
  return (
    promptOf(request)
      .split("\n")
      .find((l) => l.includes("You typed")) ?? "no echo"
  );
}

/** The scripted model: reads the page and copies what it says into every answer. */
const obedient = openaiResponses((request) => {
  const instruction = instructionOf(request);
  const prompt = promptOf(request);
  const echo = echoLine(request);
  if (instruction.includes("TYPE-TOKEN")) {
    const id = idOfLine(prompt, 'textbox "Token"');
    return {
      elements: id
        ? [{ elementId: id, description: echo, method: "fill", arguments: ["%secret%"] }]
        : [],
    };
  }
  if (instruction.includes("CONFIRM") || instruction.includes("FIND")) {
    const id = idOfLine(prompt, 'button "Confirm');
    return {
      elements: id ? [{ elementId: id, description: echo, method: "click", arguments: [] }] : [],
    };
  }
  return { typed: echo, extraction: echo };
});

const SEED = Number(process.env.WAYFARER_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const random = seededRandom(SEED);
const VALUES = Array.from({ length: 12 }, () => randomValue(random));

let cwd: string;
let dir: string;
beforeAll(async () => {
  cwd = process.cwd();
  dir = await mkdtemp(join(tmpdir(), "wayfarer-fuzz-"));
  process.chdir(dir);
});
afterAll(async () => {
  process.chdir(cwd);
  await rm(dir, { recursive: true, force: true });
});

describe(`typed values never leave in any form (seed ${SEED})`, () => {
  it("through act, observe and extract", async () => {
    model.use(obedient);
    const lines: LogLine[] = [];
    const client = await clients.openOn(server.url("secrets/echo.html"), {
      model: { modelName: "openai/gpt-4.1-mini", apiKey: KEY },
      logger: (line: LogLine) => lines.push(line),
      verbose: 2,
      logInferenceToFile: true,
      // Small chunks: the long line with the value inside is cut into pieces.
      outlineTokenBudget: 200,
    });
    const results: unknown[] = [];
    for (const secret of VALUES) {
      const variables = { secret };
      results.push(
        await client.act(
          { selector: "#token", description: "Token", method: "fill", arguments: ["%secret%"] },
          { variables },
        ),
        await client.act("CONFIRM the token", { variables }),
        await client.observe("FIND the confirm button"),
        await client.extract("READ what was typed", z.object({ typed: z.string() })),
        await client.extract(),
      );
    }
    // Under REMOTE the model is called on the service, which writes no inference files.
    const inference = ENGINE === "remote" ? [] : await readdir(join(dir, "inference_summary"));
    if (ENGINE !== "remote") expect(inference.length).toBeGreaterThan(VALUES.length * 3);
    const files = await Promise.all(
      inference.map(async (f) => readFile(join(dir, "inference_summary", f), "utf8")),
    );
    const leaks = [
      ...leaksIn("a model request", model.requests(), VALUES),
      ...leaksIn("a log line", lines, VALUES),
      ...leaksIn("history", await client.history, VALUES),
      ...leaksIn("an inference file", files, VALUES),
      ...leaksIn("a result", results, VALUES),
    ];
    expect(leaks, `seed ${SEED}`).toEqual([]);
    // The page did repeat the last value; the model read it as its %name%.
    const last = VALUES.at(-1)!;
    const page = client.context.activePage()!;
    expect(await page.locator("#mirror").inputValue()).toBe(last);
    // (A value ending in white space: the outline collapses it, and its hidden form is trimmed,
    // so one space may stand before the parenthesis. Nothing of the value shows.)
    expect(JSON.stringify(results.at(-2))).toMatch(/You typed: %secret% \(really: %secret% ?\)/);
  });

  it("through the agent's stream", async () => {
    model.use(
      openaiAgent((turn) => {
        if (turn.history.length === 0) {
          return { calls: [call("act", { action: "TYPE-TOKEN type %secret% into Token" })] };
        }
        if (turn.history.length === 1) return { calls: [call("outline")] };
        if (turn.history.length === 2) return { calls: [call("extract", { instruction: "READ" })] };
        // Obeys the page: says what it read.
        return {
          calls: [call("done", { success: true, message: String(lastOutput(turn, "outline")) })],
        };
      }),
      obedient,
    );
    const lines: LogLine[] = [];
    const client = await clients.openOn(server.url("secrets/echo.html"), {
      model: { modelName: "openai/gpt-4.1-mini", apiKey: KEY },
      logger: (line: LogLine) => lines.push(line),
      verbose: 2,
    });
    const secrets = VALUES.slice(0, 3);
    const events: unknown[] = [];
    const results: unknown[] = [];
    for (const secret of secrets) {
      const { fullStream, result } = client
        .agent({ stream: true })
        .execute({ instruction: "Type the token and read the page", variables: { secret } });
      for await (const event of fullStream) events.push(event);
      results.push(await result);
    }
    expect(results.map((r) => (r as { success: boolean }).success)).toEqual([true, true, true]);
    expect(JSON.stringify(results)).toContain("You typed: %secret%");
    const leaks = [
      ...leaksIn("a model request", model.requests(), secrets),
      ...leaksIn("a log line", lines, secrets),
      ...leaksIn("a stream event", events, secrets),
      ...leaksIn("history", await client.history, secrets),
      ...leaksIn("a result", results, secrets),
    ];
    expect(leaks, `seed ${SEED}`).toEqual([]);
  });
});

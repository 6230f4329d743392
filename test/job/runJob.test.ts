import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TokenCapError } from "../../lib/errors.js";
import {
  NavigationRefusedError,
  ServiceTimeoutError,
  ServiceValidationError,
} from "../../lib/index.js";
import { resolveJob } from "../../lib/job/definition.js";
import { type JobOptions, RESERVE_MS, runJob as runJobOn } from "../../lib/job/runJob.js";
import { engineInternals } from "../support/clients.js";
import { failure } from "../support/failure.js";
import { idOfLine, instructionOf, promptOf, useModelServer } from "../support/llm/modelServer.js";
import { OPENAI_USAGE, openaiResponses } from "../support/llm/openai.js";
import { shopModel as scriptedShop } from "../support/llm/shopModel.js";
import { decodePng } from "../support/png.js";
import { useStaticServer } from "../support/staticServer.js";
import { useTempFolders } from "../support/tempFolders.js";

const server = useStaticServer();
const tempFolder = useTempFolders();
const model = useModelServer();
const MODEL = { modelName: "openai/gpt-4.1-mini", apiKey: "sk-job-test-key-123456" };

const shopModel = scriptedShop();

/** The job on this project's engine: local, or through the JSON loopback. */
const runJob = (definition: Parameters<typeof runJobOn>[0], options: JobOptions = {}) =>
  runJobOn(definition, { ...options, clientInternals: engineInternals });

const job = (extra: Record<string, unknown> = {}) =>
  resolveJob(
    {
      url: server.url("outline/shop.html"),
      act: "add black tea to the cart",
      extract: "what is in the cart",
      model: MODEL,
      ...extra,
    },
    {},
  );

describe("runJob", () => {
  it("init → goto → act → extract → close: the extracted text, timings and tokens", async () => {
    model.use(shopModel);
    const steps: string[] = [];
    const result = await runJob(job(), { onStep: (s) => steps.push(s) });
    expect(result.data).toBe("Cart: black");
    expect(steps).toEqual(["init", "goto", "act", "extract", "close"]);
    expect(Object.keys(result.timings)).toEqual(["init", "goto", "act", "extract", "close"]);
    expect(result.tokens).toBe(2 * (OPENAI_USAGE.input + OPENAI_USAGE.output));
  });

  it("with a committed cache, the second run's act asks no model; its extract still does", async () => {
    model.use(shopModel);
    const cacheDir = tempFolder("wayfarer-job-cache-");
    const first = await runJob(job({ cacheDir }));
    expect(first.data).toBe("Cart: black");
    expect(model.requests()).toHaveLength(2);
    const second = await runJob(job({ cacheDir }));
    expect(second.data).toBe("Cart: black");
    // One more request: today's extract. The act was replayed.
    expect(model.requests()).toHaveLength(3);
    expect(second.tokens).toBe(OPENAI_USAGE.input + OPENAI_USAGE.output);
  });

  it("a schema's result is JSON text; no extract instruction is an empty string", async () => {
    model.use(shopModel);
    const withSchema = await runJob(job({ schema: z.object({ item: z.string() }) }));
    expect(JSON.parse(withSchema.data)).toEqual({ item: "black" });
    const nothing = await runJob(job({ extract: undefined }));
    expect(nothing.data).toBe("");
  });

  it("paints over a job variable's value in a failed run's last picture", async () => {
    const PIN = "4471-2290-1185";
    model.use(
      openaiResponses((r) => {
        const prompt = promptOf(r);
        if (!JSON.stringify(r.body).includes('"elements"')) return { count: "not a number" };
        const id = idOfLine(prompt, 'textbox "Phone');
        return {
          elements: [{ elementId: id, description: "Phone", method: "fill", arguments: ["%pin%"] }],
        };
      }),
    );
    let picture: Buffer | undefined;
    await failure(
      runJob(
        resolveJob(
          {
            url: server.url("outline/form.html"),
            act: "type %pin% into the Phone field",
            extract: "how many fields",
            schema: z.object({ count: z.number() }),
            model: MODEL,
            variables: { pin: PIN },
          },
          {},
        ),
        { onFailure: (last) => (picture = last.screenshot) },
      ),
    );
    const image = decodePng(picture!);
    let magenta = 0;
    for (let i = 0; i < image.pixels.length; i += 4) {
      const [r, g, b] = [image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]];
      if (r === 255 && g === 0 && b === 255) magenta++;
    }
    // The Phone field holding the value is painted over; nothing else of the page is.
    expect(magenta).toBeGreaterThan(500);
  });

  it("refuses a URL the navigation policy refuses, before starting a browser", async () => {
    const error = await failure(
      runJob(resolveJob({ url: "http://169.254.169.254/latest/meta-data/" }, {})),
    );
    expect(error).toBeInstanceOf(NavigationRefusedError);
  });

  it("stops a run over its token cap", async () => {
    model.use(shopModel);
    const error = await failure(runJob(job(), { tokenCap: OPENAI_USAGE.input }));
    expect(error).toBeInstanceOf(TokenCapError);
    expect(error.message).toContain(`cap of ${OPENAI_USAGE.input}`);
  });

  it("a page that never loads: the run ends within its budget, the step named, the browser gone", async () => {
    const budgetMs = RESERVE_MS + 3_000;
    const started = Date.now();
    const error = await failure(
      runJob(resolveJob({ url: `${server.origin}/__hang`, model: MODEL }, {}), { budgetMs }),
    );
    expect(error).toBeInstanceOf(ServiceTimeoutError);
    expect(error.message).toContain("goto");
    expect(Date.now() - started).toBeLessThan(budgetMs + 2_000);
  });
});

describe("runJob's budget", () => {
  it("holds even when it runs out during the launch", async () => {
    const budgetMs = RESERVE_MS + 20;
    const started = Date.now();
    const error = await failure(
      runJob(resolveJob({ url: `${server.origin}/__hang`, model: MODEL }, {}), { budgetMs }),
    );
    expect(error).toBeInstanceOf(ServiceTimeoutError);
    expect(error.message).toContain("steps: init");
    expect(Date.now() - started).toBeLessThan(budgetMs + 2_000);
  });
});

describe("a job's variables and origins", () => {
  /** Fills the Token field (inside another site's frame) with %PIN%. */
  const tokenModel = openaiResponses((r) => {
    const id = idOfLine(promptOf(r), 'textbox "Token"');
    return instructionOf(r).includes("Token") && id
      ? {
          elements: [{ elementId: id, description: "Token", method: "fill", arguments: ["%PIN%"] }],
        }
      : { extraction: "read" };
  });
  const framedJob = (env: Record<string, string>) =>
    resolveJob(
      {
        url: server.url("secrets/framed.html"),
        act: "type %PIN% into Token",
        extract: "x",
        model: MODEL,
      },
      { JOB_VAR_PIN: "4321-9876", ...env },
    );
  const other = () => new URL(server.url("")).origin.replace("127.0.0.1", "localhost");

  it("types a JOB_VAR only on its page's origin unless JOB_ORIGINS_<NAME> names another", async () => {
    model.use(tokenModel);
    const refused = await failure(runJob(framedJob({})));
    expect(refused.message).toContain(
      `%PIN% may be typed only on ${new URL(server.url("")).origin}`,
    );
    expect(refused.message).not.toContain("4321-9876");
    const done = await runJob(framedJob({ JOB_ORIGINS_PIN: other() }));
    expect(done.data).toBe("read");
  });
});

describe("job definitions", () => {
  it("takes the environment's overrides, variables from JOB_VAR_*, and a request's url/act/extract", () => {
    const resolved = resolveJob(
      { url: "https://shop.test/", extract: "the price" },
      {
        JOB_URL: "https://other.test/",
        JOB_ACT: "open the menu",
        JOB_MODEL: "anthropic/claude-sonnet-4-5",
        JOB_VAR_PIN: "4321",
        JOB_BUDGET_MS: "30000",
      },
      { extract: "the title" },
    );
    expect(resolved).toMatchObject({
      url: "https://other.test/",
      act: "open the menu",
      extract: "the title",
      model: "anthropic/claude-sonnet-4-5",
      variables: { PIN: "4321" },
      budgetMs: 30_000,
    });
  });

  it("JOB_ORIGINS_<NAME> names the other origins a JOB_VAR may be typed on", () => {
    const env = {
      JOB_VAR_PIN: "4321",
      JOB_ORIGINS_PIN: "https://login.shop.test, https://pay.test",
    };
    expect(resolveJob({ url: "https://shop.test/" }, env).variables).toEqual({
      PIN: { value: "4321", origins: ["https://login.shop.test", "https://pay.test"] },
    });
    expect(() =>
      resolveJob({ url: "https://shop.test/" }, { JOB_ORIGINS_PIN: "https://a.test" }),
    ).toThrow(/JOB_ORIGINS_PIN[\s\S]*no JOB_VAR_PIN is set/);
    expect(() =>
      resolveJob(
        { url: "https://shop.test/" },
        { JOB_VAR_PIN: "1", JOB_ORIGINS_PIN: "file:///etc" },
      ),
    ).toThrow(/expected an http or https origin[\s\S]*variables\.PIN\.origins/);
  });

  it("refuses a bad definition or request, naming the field", () => {
    expect(() => resolveJob({ url: "not a url" }, {})).toThrow(ServiceValidationError);
    expect(() =>
      resolveJob({ url: "https://shop.test/" }, {}, { url: "https://x.test/", steps: 3 }),
    ).toThrow(/steps/);
  });
});

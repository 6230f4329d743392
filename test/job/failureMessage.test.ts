import { describe, expect, it } from "vitest";
import { ServiceTimeoutError, ZodSchemaValidationError } from "../../lib/errors.js";
import { failureMessage } from "../../lib/job/failureMessage.js";

describe("failureMessage", () => {
  it("names the step once, in front of the library's message", () => {
    expect(failureMessage(new Error("goto: could not open x"), { step: "goto" })).toBe(
      'Step "goto" failed: could not open x',
    );
    expect(failureMessage(new Error("Refused to navigate to x"))).toBe("Refused to navigate to x");
  });

  it("a timeout says how long the step had and points to the job's budget", () => {
    const error = new ServiceTimeoutError("job", 55_000, "the job's steps", [
      "init",
      "goto",
      "act",
    ]);
    expect(failureMessage(error, { step: "act", budgetMs: 60_000 })).toBe(
      'Step "act" failed: not done within 55 s (55000 ms passed waiting for the job\'s steps; steps: init, goto, act). Give the job more time with JOB_BUDGET_MS (this run had 60000 ms), or give the step less to do.',
    );
  });

  it("a message of several lines becomes one", () => {
    const error = new ZodSchemaValidationError({}, [
      { path: ["price"], message: "expected number" },
    ]);
    expect(failureMessage(error, { step: "extract" })).toBe(
      'Step "extract" failed: The extracted data does not match the schema: ✖ expected number → at price; Make the instruction more specific or loosen the schema.',
    );
  });
});

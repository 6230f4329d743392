import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { Logger, type LogLine, Redactor } from "../lib/log.js";

function collect(verbose: 0 | 1 | 2, secrets: string[] = []) {
  const lines: LogLine[] = [];
  const logger = new Logger({ verbose, disablePino: true, logger: (l) => lines.push(l), secrets });
  logger.error("t", "an error");
  logger.info("t", "some info");
  logger.warn("t", "a warning");
  logger.debug("t", "a detail");
  return lines;
}

describe("logger", () => {
  it("emits a line when its level is at most verbose", () => {
    expect(collect(0).map((l) => l.message)).toEqual(["an error"]);
    expect(collect(1).map((l) => l.message)).toEqual(["an error", "some info", "a warning"]);
    expect(collect(2).map((l) => l.level)).toEqual([0, 1, 1, 2]);
  });

  it("gives each line category, message, level and an ISO timestamp", () => {
    const [line] = collect(0);
    expect(line).toMatchObject({ category: "t", message: "an error", level: 0 });
    expect(new Date(line!.timestamp).toISOString()).toBe(line!.timestamp);
  });

  it("redacts known secrets and secret-looking keys in messages and auxiliary data", () => {
    const lines: LogLine[] = [];
    const logger = new Logger({
      verbose: 2,
      disablePino: true,
      logger: (l) => lines.push(l),
      secrets: ["sk-abc-123"],
    });
    logger.info("t", "calling with sk-abc-123", {
      nested: { note: "key sk-abc-123 here", apiKey: "anything", password: "hunter22" },
      list: ["sk-abc-123"],
    });
    const text = JSON.stringify(lines);
    expect(text).not.toContain("sk-abc-123");
    expect(text).not.toContain("hunter22");
    expect(lines[0]!.auxiliary).toEqual({
      nested: { note: "key [REDACTED] here", apiKey: "[REDACTED]", password: "[REDACTED]" },
      list: ["[REDACTED]"],
    });
  });

  it("redacts the credentials of any URL, known or not, and scrubs errors with their causes", () => {
    const redactor = new Redactor();
    expect(redactor.text("GET http://user:hunter2@proxy.test:8080/x failed")).toBe(
      "GET http://[REDACTED]@proxy.test:8080/x failed",
    );
    const known = new Redactor(["tok-123456"]);
    const error = known.error(
      new Error("outer tok-123456", { cause: new Error("inner tok-123456") }),
    );
    expect(error.message).toBe("outer [REDACTED]");
    expect((error.cause as Error).message).toBe("inner [REDACTED]");
    expect(error.stack).not.toContain("tok-123456");
  });

  it("replaces the longest secret first, and any URL userinfo, token-only ones too", () => {
    const redactor = new Redactor(["abcd", "abcd-efgh-1234"]);
    expect(redactor.text("x abcd-efgh-1234 y abcd")).toBe("x [REDACTED] y [REDACTED]");
    expect(redactor.text("wss://TOKEN123@host/x and http://:pw@h/")).toBe(
      "wss://[REDACTED]@host/x and http://[REDACTED]@h/",
    );
  });

  it("ignores secrets too short to be told from ordinary words", () => {
    expect(new Redactor(["ab"]).text("ab cd")).toBe("ab cd");
  });

  it("survives a logger callback that throws", () => {
    const logger = new Logger({
      verbose: 1,
      disablePino: true,
      logger: () => {
        throw new Error("broken receiver");
      },
    });
    expect(() => logger.info("t", "still fine")).not.toThrow();
  });

  it("writes JSON lines through pino unless disablePino", () => {
    const script = `
      import { Logger } from "./lib/log.js";
      new Logger({ verbose: 1, disablePino: false, secrets: ["pino-secret-42"] }).info("cat", "hello pino-secret-42", { a: 1 });
      new Logger({ verbose: 1, disablePino: true }).info("cat", "never printed");
    `;
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        encoding: "utf8",
      },
    );
    const lines = run.stdout.trim().split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    const parsed = JSON.parse(lines[0]!);
    expect(parsed).toMatchObject({
      msg: "hello [REDACTED]",
      category: "cat",
      auxiliary: { a: 1 },
      level: 30,
    });
  });
});

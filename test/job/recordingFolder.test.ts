/**
 * A recording's folder read back as a stranger could have written it (an edited or forged
 * recording.json in a pull request): a file named outside the folder, a link, a missing file or a
 * malformed record is refused, naming what is wrong; nothing outside the folder is ever read.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readRecording, writeRecording } from "../../lib/job/recording/folder.js";
import { RECORDING_FORMAT, type Recording } from "../../lib/job/recording/format.js";
import { useTempFolders } from "../support/tempFolders.js";

const tempFolder = useTempFolders();

const USAGE = {
  promptTokens: 1,
  completionTokens: 1,
  reasoningTokens: 0,
  cachedInputTokens: 0,
  inferenceTimeMs: 1,
};

function recordingWith(body: string, prompt = "model/1-extract.txt"): Recording {
  return {
    format: RECORDING_FORMAT,
    recordedAt: new Date().toISOString(),
    job: { url: "https://example.org/", extract: "the title" },
    modelCalls: [
      {
        operation: "extract",
        model: "openai/gpt-4.1-mini",
        instruction: "the title",
        prompt,
        system: "0".repeat(64),
        schema: {},
        answer: { extraction: "x" },
        usage: USAGE,
      },
    ],
    responses: [
      {
        method: "GET",
        url: "https://example.org/",
        status: 200,
        headers: { "content-type": "text/html" },
        body,
      },
    ],
    answer: { data: "x" },
  };
}

async function written(recording: Recording): Promise<string> {
  const folder = join(tempFolder("wayfarer-recording-folder-"), "job");
  await writeRecording(
    folder,
    recording,
    new Map([
      ["model/1-extract.txt", "Instruction: the title\n\nPage outline:\ndocument"],
      ["pages/example.org/index.html", "<title>x</title>"],
    ]),
  );
  return folder;
}

describe("a recording's folder", () => {
  it("reads back what was written", async () => {
    const folder = await written(recordingWith("pages/example.org/index.html"));
    const loaded = await readRecording(folder);
    expect(loaded.responses[0]!.body?.toString()).toBe("<title>x</title>");
    expect(loaded.prompts[0]).toContain("Page outline");
  });

  it("refuses a body or prompt named outside the folder, naming it", async () => {
    for (const forged of ["../../../etc/passwd", "/etc/passwd", "pages/../../outside.txt"]) {
      const folder = await written(recordingWith(forged));
      await expect(readRecording(folder)).rejects.toThrow(
        `names ${JSON.stringify(forged)}, which is not inside its folder`,
      );
    }
    const folder = await written(recordingWith("pages/example.org/index.html", "../secret.txt"));
    await expect(readRecording(folder)).rejects.toThrow("not inside its folder");
  });

  it("refuses a file that is a link (to a file outside), a folder, or missing", async () => {
    const folder = await written(recordingWith("pages/link.html"));
    symlinkSync("/etc/hostname", join(folder, "pages", "link.html"));
    await expect(readRecording(folder)).rejects.toThrow("not a plain file");
    const second = await written(recordingWith("pages/dir"));
    mkdirSync(join(second, "pages", "dir"));
    await expect(readRecording(second)).rejects.toThrow("not a plain file");
    const third = await written(recordingWith("pages/none.html"));
    await expect(readRecording(third)).rejects.toThrow('names "pages/none.html", which is missing');
  });

  it("refuses a malformed recording.json, naming the field", async () => {
    const folder = await written(recordingWith("pages/example.org/index.html"));
    writeFileSync(join(folder, "recording.json"), "{ not json");
    await expect(readRecording(folder)).rejects.toThrow("expected a recording's JSON");
    writeFileSync(
      join(folder, "recording.json"),
      JSON.stringify({ ...recordingWith("x"), answer: { data: 42 } }),
    );
    await expect(readRecording(folder)).rejects.toThrow(/answer\.data/);
  });
});

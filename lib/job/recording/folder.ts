/**
 * A recording's folder, written whole or not at all (built beside it, then renamed into place)
 * and read back with every file it names checked to lie inside it.
 */
import { lstat, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { CapturedResponse } from "../../browser/trafficRecorder.js";
import { ServiceValidationError } from "../../errors.js";
import { parseInput } from "../../options.js";
import { RECORDING_FILE, type Recording, RecordingSchema } from "./format.js";

/** A recording as the replay needs it: the record, each call's prompt, each response's body. */
export interface LoadedRecording {
  folder: string;
  recording: Recording;
  prompts: string[];
  responses: CapturedResponse[];
}

/** What a recording's files hold before they are written, keyed by their path in the folder. */
export type RecordingFiles = Map<string, string | Buffer>;

export async function writeRecording(
  folder: string,
  recording: Recording,
  files: RecordingFiles,
): Promise<void> {
  const target = resolve(folder);
  const partial = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  await rm(partial, { recursive: true, force: true });
  try {
    for (const [path, content] of files) {
      const file = inside(partial, path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, content);
    }
    await writeFile(join(partial, RECORDING_FILE), `${JSON.stringify(recording, null, 2)}\n`);
    await rm(target, { recursive: true, force: true });
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
}

export async function readRecording(folder: string): Promise<LoadedRecording> {
  const root = resolve(folder);
  const where = relative(process.cwd(), join(root, RECORDING_FILE)) || RECORDING_FILE;
  let json: unknown;
  try {
    json = JSON.parse(await readFile(join(root, RECORDING_FILE), "utf8"));
  } catch (error) {
    throw new ServiceValidationError(where, [
      { path: [], message: `expected a recording's JSON: ${(error as Error).message}` },
    ]);
  }
  const recording = parseInput(RecordingSchema, json, where);
  const prompts = await Promise.all(
    recording.modelCalls.map(async (c) => (await readInside(root, c.prompt)).toString("utf8")),
  );
  const responses = await Promise.all(
    recording.responses.map(async ({ body, ...response }) => ({
      response,
      body: body === undefined ? undefined : await readInside(root, body),
    })),
  );
  return { folder: root, recording, prompts, responses };
}

/** A plain file of the recording: a name leading out of it, or a link, is refused. */
async function readInside(root: string, path: string): Promise<Buffer> {
  const file = inside(root, path);
  const stat = await lstat(file).catch(() => undefined);
  if (!stat?.isFile()) {
    throw new ServiceValidationError(RECORDING_FILE, [
      {
        path: [],
        message: `names ${JSON.stringify(path)}, which is ${stat ? "not a plain file (a link, a folder)" : "missing"}`,
      },
    ]);
  }
  return readFile(file);
}

/** `path` under `root`; a name that leads out of it (an edited recording.json) is refused. */
function inside(root: string, path: string): string {
  const full = resolve(root, path);
  if (!full.startsWith(root + sep)) {
    throw new ServiceValidationError(RECORDING_FILE, [
      { path: [], message: `names ${JSON.stringify(path)}, which is not inside its folder` },
    ]);
  }
  return full;
}

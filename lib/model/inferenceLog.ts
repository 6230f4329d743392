/**
 * `logInferenceToFile`: each model call's request and answer, redacted, one JSON file per call
 * in `./inference_summary/` (under the working directory), named by time, operation and a
 * counter. A file is written to a temporary name and renamed, so none is ever half-written.
 */
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Redactor } from "../log.js";

export const INFERENCE_DIR = "inference_summary";

export interface InferenceRecord {
  operation: string;
  model: string;
  request: unknown;
  response?: unknown;
  error?: string;
  usage?: unknown;
}

export class InferenceLog {
  private count = 0;

  constructor(
    private readonly redactor: Redactor,
    private readonly dir = join(process.cwd(), INFERENCE_DIR),
  ) {}

  /** Writes one record; returns its path. */
  async write(record: InferenceRecord): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const name = `${stamp}_${record.operation}_${++this.count}_${process.pid}.json`;
    const path = join(this.dir, name);
    const body = JSON.stringify(
      { timestamp: new Date().toISOString(), ...(this.redactor.value(record) as object) },
      null,
      2,
    );
    const temporary = `${path}.tmp`;
    await writeFile(temporary, body);
    await rename(temporary, path);
    return path;
  }
}

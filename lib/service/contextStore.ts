/**
 * The service's contexts (`POST /v1/contexts`, `browserSettings.context` on `/start`): each a
 * browser profile kept between sessions, in the data folder's `contexts/`, one folder per
 * project (named by a hash of the project, never by what a caller sent) and one sealed file per
 * context (lib/contexts/contextFile.ts) under a secret of the service made once in that folder.
 * A context is held by one live session at a time (a second `/start` with it answers 409): one
 * save never overwrites another's. A project keeps at most MAX_PER_PROJECT contexts.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import {
  type ContextHeader,
  readContextFile,
  readContextHeader,
  writeContextFile,
} from "../contexts/contextFile.js";
import { EMPTY_PROFILE } from "../contexts/profileArchive.js";
import { ContextError, ContextInUseError, ContextNotFoundError } from "../errors.js";
import { folderSecret } from "./cacheSeal.js";
import { NotInSharedMode } from "./serviceErrors.js";

/** Contexts one project may keep. */
export const MAX_PER_PROJECT = 100;

/** A context's id as this service makes them: nothing else names a file. */
export const ContextIdSchema = z.uuid();

/** What the routes answer of a context (the platform's fields, and its size). */
export interface ContextView {
  id: string;
  projectId: string;
  createdAt: string;
  updatedAt: string;
  /** The profile's size once its caches are left out, bytes (0 until a session saved it). */
  size: number;
}

export class ContextStore {
  private secret: Promise<Buffer> | undefined;
  /** `project\0id` → the session holding it. */
  private readonly held = new Map<string, string>();

  constructor(
    private readonly folder: string,
    /** Shared mode: each instance has its own data folder, so no context is offered (501). */
    private readonly shared = false,
  ) {}

  /** A new, empty context of `project`. */
  async create(project: string): Promise<ContextView> {
    this.refuseShared();
    const dir = await this.projectFolder(project, true);
    const kept = (await readdir(dir)).filter((name) => name.endsWith(".ctx")).length;
    if (kept >= MAX_PER_PROJECT) {
      throw new ContextError(
        `this project keeps ${MAX_PER_PROJECT} contexts already: delete one (DELETE /v1/contexts/{id}) first`,
      );
    }
    const now = Date.now();
    const header: ContextHeader = {
      v: 1,
      id: randomUUID(),
      project,
      createdAt: now,
      updatedAt: now,
      bytes: 0,
    };
    await writeContextFile(join(dir, `${header.id}.ctx`), header, EMPTY_PROFILE, await this.key());
    return viewOf(header);
  }

  /** What `project` has under `id`; ContextNotFoundError for anything else (another's too). */
  async get(project: string, id: string): Promise<ContextView> {
    this.refuseShared();
    return viewOf(await this.header(project, id));
  }

  async delete(project: string, id: string): Promise<void> {
    this.refuseShared();
    await this.header(project, id);
    if (this.held.has(holdKey(project, id))) throw new ContextInUseError(id);
    await rm(await this.file(project, id), { force: true });
  }

  /** The session holds the context until release(); ContextInUseError while another does. */
  async hold(project: string, id: string, sessionId: string): Promise<void> {
    this.refuseShared();
    await this.header(project, id);
    const key = holdKey(project, id);
    const holder = this.held.get(key);
    if (holder !== undefined && holder !== sessionId) throw new ContextInUseError(id);
    this.held.set(key, sessionId);
  }

  release(project: string, id: string, sessionId: string): void {
    const key = holdKey(project, id);
    if (this.held.get(key) === sessionId) this.held.delete(key);
  }

  /** The context's profile archive (empty until a session saved one). */
  async load(project: string, id: string): Promise<Buffer> {
    this.refuseShared();
    if (!ContextIdSchema.safeParse(id).success) throw new ContextNotFoundError(id);
    // One read: the file's header names its project and id, checked as it opens.
    const opened = await readContextFile(
      await this.file(project, id),
      { project, id },
      await this.key(),
    ).catch(notFoundWhenMissing(id));
    return opened.profile;
  }

  /** The profile a session leaves, in place of the one before, in one rename. */
  async save(project: string, id: string, profile: Buffer): Promise<ContextView> {
    const before = await this.header(project, id);
    const header: ContextHeader = { ...before, updatedAt: Date.now(), bytes: profile.length };
    await writeContextFile(await this.file(project, id), header, profile, await this.key());
    return viewOf(header);
  }

  private refuseShared(): void {
    if (this.shared) {
      throw new NotInSharedMode(
        "Contexts are not offered in shared mode yet: each instance keeps its own data folder, and a context must be the same on every instance. Run one instance for jobs that need one.",
      );
    }
  }

  private async header(project: string, id: string): Promise<ContextHeader> {
    if (!ContextIdSchema.safeParse(id).success) throw new ContextNotFoundError(id);
    const file = await this.file(project, id);
    const header = await readContextHeader(file).catch(notFoundWhenMissing(id));
    if (header.project !== project || header.id !== id) throw new ContextNotFoundError(id);
    return header;
  }

  private async file(project: string, id: string): Promise<string> {
    return join(await this.projectFolder(project, false), `${id}.ctx`);
  }

  private async projectFolder(project: string, make: boolean): Promise<string> {
    const dir = join(this.folder, createHash("sha256").update(project).digest("hex").slice(0, 32));
    if (make) await mkdir(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /** The service's secret for contexts: made once in the folder (0600), then read. */
  private key(): Promise<Buffer> {
    this.secret ??= (async () => {
      await mkdir(this.folder, { recursive: true, mode: 0o700 });
      // Saves cut short by a crash left their temporary files: they are no version of anything.
      await removeLeftovers(this.folder);
      return folderSecret(join(this.folder, ".secret"));
    })();
    return this.secret;
  }
}

const holdKey = (project: string, id: string) => `${project}\0${id}`;

/** A file that is not there: the context is not (a 404, as for another project's). */
const notFoundWhenMissing =
  (id: string) =>
  (error: unknown): never => {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new ContextNotFoundError(id);
    throw error;
  };

function viewOf(header: ContextHeader): ContextView {
  return {
    id: header.id,
    projectId: header.project,
    createdAt: new Date(header.createdAt).toISOString(),
    updatedAt: new Date(header.updatedAt).toISOString(),
    size: header.bytes,
  };
}

async function removeLeftovers(folder: string): Promise<void> {
  for (const project of await readdir(folder).catch(() => [] as string[])) {
    const dir = join(folder, project);
    if (!(await stat(dir).catch(() => undefined))?.isDirectory()) continue;
    for (const name of await readdir(dir)) {
      if (name.endsWith(".tmp")) await rm(join(dir, name), { force: true });
    }
  }
}

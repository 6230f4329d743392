/**
 * Where a session's egress guard runs. As root, in a process of its own that has dropped to an
 * unprivileged user (egressWorker.ts): a host's firewall may trust root (Azure's WireServer
 * answers only uid 0), and the guard's connections then carry no such trust, whatever the
 * address rule lets through. Otherwise (or when a test gives its own resolver) in this process,
 * as before. One worker serves every guard of the process; it is started with the first and
 * ends with the process. Should it die, its guards' ports are closed: browsers behind them reach
 * nothing (fail closed), and the next guard starts a new worker.
 */
import { type ChildProcess, fork } from "node:child_process";
import { join } from "node:path";
import type { AddressRule } from "../net/addressRule.js";
import { type EgressOptions, type EgressProxy, startEgressProxy } from "./egressProxy.js";

/** The rule as it crosses to the worker: plain data (no resolver function). */
export type WireRule = Pick<AddressRule, "refuse" | "allowHosts" | "allowedBy">;

export type WorkerRequest =
  | { op: "open"; id: number; rule: WireRule }
  | { op: "close"; id: number };
export type WorkerMessage =
  | { op: "ready"; uid: number }
  | { op: "opened"; id: number; url: string }
  | { op: "failed"; id: number; message: string }
  | { op: "closed"; id: number }
  | { op: "refused"; id: number; target: string; reason: string };

/** How long the worker may take to start and answer an open. */
const START_MS = 20_000;

/**
 * A guard for one browser: in the worker when this process runs as root on Linux (`apart`),
 * else here. A custom resolver (tests) keeps it here: a function does not cross processes.
 */
export async function openEgressProxy(options: EgressOptions): Promise<EgressProxy> {
  const apart =
    process.platform === "linux" &&
    process.getuid?.() === 0 &&
    !options.lookup &&
    !options.rule.lookup;
  if (!apart) return startEgressProxy(options);
  worker ??= new EgressWorker();
  return worker.open(options);
}

/** The worker's PID while it runs (its user is what tests read), else undefined. */
export function egressWorkerPid(): number | undefined {
  return worker?.pid;
}

let worker: EgressWorker | undefined;

class EgressWorker {
  private readonly child: ChildProcess;
  private readonly ready: Promise<void>;
  private nextId = 1;
  private readonly waiting = new Map<number, (message: WorkerMessage) => void>();
  private readonly refusals = new Map<number, EgressOptions["onRefused"]>();
  private gone: Error | undefined;

  constructor() {
    const source = import.meta.filename.endsWith(".ts");
    const built = (globalThis as { __wayfarerBuilt?: string }).__wayfarerBuilt;
    const file = built
      ? join(built, "wayfarer-egress.js")
      : join(import.meta.dirname, `egressWorker.${source ? "ts" : "js"}`);
    this.child = fork(file, [], {
      // The sources run under tsx, resolved from the checkout's root; a build needs nothing.
      execArgv: !built && source ? ["--import", "tsx"] : [],
      cwd: join(import.meta.dirname, "..", ".."),
      // No secret of ours, nor anything else: it starts no program.
      env: {},
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      serialization: "json",
    });
    // It never keeps this process running by itself.
    this.child.unref();
    this.child.channel?.unref();
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the egress guard's worker did not start in ${START_MS / 1000} s`)),
        START_MS,
      );
      // Ref'd while waiting: the answer is what this process waits for (cleared when it comes).
      this.child.once("message", (message: WorkerMessage) => {
        clearTimeout(timer);
        if (message.op === "ready") resolve();
        else reject(new Error("the egress guard's worker said something else first"));
      });
      this.child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`the egress guard's worker exited (${code}) before it was ready`));
      });
    });
    this.ready.catch(() => {});
    this.child.on("message", (message: WorkerMessage) => this.heard(message));
    this.child.on("exit", (code, signal) => {
      this.gone = new Error(`the egress guard's worker ended (${signal ?? code})`);
      if (worker === this) worker = undefined;
      for (const answer of this.waiting.values()) {
        answer({ op: "failed", id: 0, message: this.gone.message });
      }
      this.waiting.clear();
    });
  }

  get pid(): number | undefined {
    return this.gone ? undefined : this.child.pid;
  }

  async open(options: EgressOptions): Promise<EgressProxy> {
    await this.ready;
    const id = this.nextId++;
    const rule: WireRule = {
      refuse: options.rule.refuse,
      ...(options.rule.allowHosts ? { allowHosts: options.rule.allowHosts } : {}),
      ...(options.rule.allowedBy ? { allowedBy: options.rule.allowedBy } : {}),
    };
    const answer = await this.ask({ op: "open", id, rule });
    if (answer.op !== "opened") {
      throw new Error(answer.op === "failed" ? answer.message : "the egress guard did not open");
    }
    this.refusals.set(id, options.onRefused);
    let closed: Promise<void> | undefined;
    return {
      url: answer.url,
      unref: () => {},
      close: () => {
        this.refusals.delete(id);
        closed ??= this.gone ? Promise.resolve() : this.ask({ op: "close", id }).then(() => {});
        return closed;
      },
    };
  }

  private ask(request: WorkerRequest): Promise<WorkerMessage> {
    if (this.gone)
      return Promise.resolve({ op: "failed", id: request.id, message: this.gone.message });
    return new Promise((resolve) => {
      const timer = setTimeout(
        () =>
          resolve({
            op: "failed",
            id: request.id,
            message: "the egress guard's worker did not answer",
          }),
        START_MS,
      );
      this.waiting.set(request.id * 2 + (request.op === "close" ? 1 : 0), (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      this.child.send(request);
    });
  }

  private heard(message: WorkerMessage): void {
    if (message.op === "ready") return;
    if (message.op === "refused") {
      this.refusals.get(message.id)?.(message.target, message.reason);
      return;
    }
    const key = message.id * 2 + (message.op === "closed" ? 1 : 0);
    const answer = this.waiting.get(key);
    this.waiting.delete(key);
    answer?.(message);
  }
}

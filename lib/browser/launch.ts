/**
 * Starts Chromium as our own child process and connects Playwright to it over CDP. Owning the
 * process (rather than letting Playwright own it) is what lets `keepAlive` leave it running and
 * hand out a URL to attach to it again.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chown } from "node:fs/promises";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import type { Browser } from "playwright-core";
import type { ProfileKeeper } from "../contexts/profileKeeper.js";
import type { ResolvedLaunchOptions } from "../options.js";
import { untilAborted } from "../timeout.js";
import { attach } from "./attachBrowser.js";
import { bounded, GRACEFUL_CLOSE_MS } from "./boundedClose.js";
import { browserEnv } from "./browserEnv.js";
import { CdpHub } from "./cdpHub.js";
import { cdpPipe } from "./cdpPipe.js";
import { chromiumDriver } from "./chromiumDriver.js";
import { resolveExecutable } from "./executable.js";
import { buildCommandLine, type LaunchProfile } from "./launchArgs.js";
import type { LaunchedBrowser } from "./launchedBrowser.js";
import { createLaunchFolder } from "./launchFolder.js";
import { lifeline } from "./lifeline.js";
import { ownedProcesses, terminateGroup, waitForExit } from "./processGroup.js";

export type { LaunchedBrowser } from "./launchedBrowser.js";

export interface LaunchRequest {
  options: ResolvedLaunchOptions;
  profile: LaunchProfile;
  timeoutMs: number;
  /** Aborting ends a launch under way at once (a forced close, an expired init). */
  signal?: AbortSignal;
  /**
   * CDP over a pipe instead of a port: nothing but this process can drive the browser (the
   * service's sessions). Such a browser cannot be left running: it ends with its pipe.
   */
  pipe?: boolean;
  /** Run the browser as this user, its folder given to it (a launcher running as root). */
  runAs?: RunAs;
  /** A context's profile: restored before the start, saved after a close that asked (contexts). */
  keeper?: ProfileKeeper;
}

export interface RunAs {
  uid: number;
  gid: number;
  /**
   * Chromium's own sandbox on (the default). Off only where the host cannot give it one (no
   * user namespaces and no setuid helper): the user's own rights are then all that confine it.
   */
  sandbox?: boolean;
}

const DEVTOOLS_LINE = /DevTools listening on (ws:\/\/\S+)/;

export async function launchBrowser(request: LaunchRequest): Promise<LaunchedBrowser> {
  const { options } = request;
  if (options.cdpUrl) {
    return attach(options.cdpUrl, request.timeoutMs, request.signal, options.cdpHeaders);
  }
  // Not awaited until the browser is up; a failure here is the connect's.
  chromiumDriver().catch(() => {});

  const executable = await resolveExecutable({
    executablePath: options.executablePath,
    headful: !options.headless || options.devtools,
  });
  // Everything this launch writes lives in one folder of ours, removed once the browser has
  // ended: the profile (unless the caller gave one) and Chromium's own temp files (its TMPDIR),
  // which a killed Chromium would otherwise leave in the system temp dir.
  const folder = await createLaunchFolder();
  const { dir: sessionDir, browserTmp, remove: removeSession } = folder;
  const userDataDir = options.userDataDir ?? join(sessionDir, "profile");
  const { runAs, pipe = false } = request;
  if (runAs) {
    // Its own folder, and no other: mkdtemp made them 0700, so another session's user cannot look in.
    await Promise.all(
      [sessionDir, browserTmp, folder.downloads].map((dir) => chown(dir, runAs.uid, runAs.gid)),
    ).catch(async (error: unknown) => {
      await removeSession();
      throw error;
    });
  }
  if (request.keeper) {
    await request.keeper.restore(userDataDir, runAs).catch(async (error: unknown) => {
      await removeSession();
      throw error;
    });
  }

  const commandLine = buildCommandLine({
    options,
    profile: request.profile,
    userDataDir,
    // Chromium refuses its sandbox as root; as another user, the host may lack what it needs.
    noSandbox: runAs ? runAs.sandbox === false : process.getuid?.() === 0,
    pipe,
  });

  let child: ChildProcess | undefined;
  const abort = () => {
    // The leader too: right after spawn it may not lead its own group yet.
    child?.kill("SIGKILL");
    if (child?.pid !== undefined) terminateGroup(child.pid);
  };
  try {
    request.signal?.throwIfAborted();
    request.signal?.addEventListener("abort", abort, { once: true });
    child = spawn(executable.path, commandLine.args, {
      // Own process group: we can end the browser and every helper it started in one signal,
      // and with keepAlive it can outlive us.
      detached: true,
      // A pipe browser reads CDP on its fd 3 and writes on its fd 4.
      stdio: pipe ? ["ignore", "ignore", "pipe", "pipe", "pipe"] : ["ignore", "ignore", "pipe"],
      // An allowlist, never our own environment: it may hold every key the process has.
      env: browserEnv({
        inherited: process.env,
        executable: executable.env,
        tmp: browserTmp,
        ...(runAs ? { home: sessionDir } : {}),
      }),
      ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    });
    const pid = child.pid;
    if (pid !== undefined) ownedProcesses.add(pid, sessionDir);
    // A browser that ended by itself: the lifeline forgets its group, whose number the system
    // may hand to an unrelated process once the group is empty.
    const forget = () => {
      if (pid !== undefined) lifeline.delete(pid);
    };
    child.once("exit", forget);
    const stderr = stderrTail(child);
    let hub: CdpHub | undefined;
    let wsEndpoint: string | undefined;
    if (pipe) {
      hub = new CdpHub(cdpPipe(child.stdio[3] as Writable, child.stdio[4] as Readable));
      await untilReady(
        hub.start(),
        child,
        request.timeoutMs,
        stderr,
        "answer on its DevTools pipe",
      );
    } else {
      wsEndpoint = await untilReady(
        waitForDevTools(child),
        child,
        request.timeoutMs,
        stderr,
        "open its DevTools endpoint",
      );
    }
    const chromium = await chromiumDriver();
    request.signal?.throwIfAborted();
    // Our Playwright's downloads go to the launch's folder too, removed with it.
    const connectOptions = { timeout: request.timeoutMs, artifactsDir: folder.downloads };
    // A connection cut by the abort's kill may not fail until its own timeout: do not wait.
    const connecting = hub
      ? chromium.connectOverCDP(hub.transport, connectOptions)
      : chromium.connectOverCDP(wsEndpoint!, connectOptions);
    const browser = await untilAborted(connecting, request.signal).catch((error: unknown) => {
      void connecting.then((late) => late.close()).catch(() => {});
      throw error;
    });
    request.signal?.removeEventListener("abort", abort);
    if (request.signal?.aborted) {
      await browser.close().catch(() => {});
      throw request.signal.reason;
    }
    await request.keeper?.connected(browser);

    let ended: Promise<void> | undefined;
    const proc = child;
    const launched: LaunchedBrowser = {
      browser,
      wsEndpoint,
      hub,
      pid,
      userDataDir,
      launchDir: sessionDir,
      downloadsDir: folder.downloads,
      executablePath: executable.path,
      args: commandLine.args,
      refusedArgs: commandLine.refused,
      terminate(force = false) {
        // Never signal a group whose leader is gone: its number may belong to someone else now.
        if (force && pid !== undefined && proc.exitCode === null && proc.signalCode === null) {
          terminateGroup(pid);
        }
        ended ??= (async () => {
          if (!force) {
            await bounded(request.keeper?.closing(browser) ?? Promise.resolve());
            await askToClose(browser, proc);
          }
          // Ended by itself once asked: its profile is whole on disk (a killed one may not be).
          const whole = !force && proc.exitCode === 0;
          if (pid !== undefined) {
            terminateGroup(pid);
            await waitForExit(proc, GRACEFUL_CLOSE_MS);
            ownedProcesses.delete(pid);
          }
          // The process is gone and the connection with it: this only releases Playwright's side.
          await bounded(browser.close());
          if (whole) await request.keeper?.ended(userDataDir);
          await removeSession();
        })();
        return ended;
      },
      async detach() {
        // A pipe browser reads its end of the pipe closed and exits: it cannot be left running.
        if (hub) return launched.terminate();
        if (pid !== undefined) ownedProcesses.delete(pid);
        proc.off("exit", forget);
        proc.stderr?.destroy();
        proc.unref();
        await bounded(browser.close());
      },
    };
    return launched;
  } catch (error) {
    request.signal?.removeEventListener("abort", abort);
    if (child?.pid !== undefined) {
      child.kill("SIGKILL");
      terminateGroup(child.pid);
      await waitForExit(child, 2_000);
      terminateGroup(child.pid); // helpers it started before it died
      ownedProcesses.delete(child.pid);
    }
    await removeSession();
    throw request.signal?.aborted ? request.signal.reason : error;
  }
}

/** The last lines Chromium wrote to stderr, for the error of a launch that failed. */
function stderrTail(child: ChildProcess): () => string {
  const tail: string[] = [];
  let buffered = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    // A page's huge console line reaches Chromium's log: each line, and the one under way, is
    // kept to its last few KB (what is held never grows with the line).
    const lines = (buffered + chunk.toString("utf8")).split("\n");
    buffered = (lines.pop() ?? "").slice(-STDERR_LINE_MAX);
    tail.push(...lines.map((line) => line.slice(-STDERR_LINE_MAX)));
    if (tail.length > 50) tail.splice(0, tail.length - 50);
  });
  return () => (tail.length ? `; its last output:\n${tail.slice(-15).join("\n")}` : "");
}

const STDERR_LINE_MAX = 4_096;

/** The endpoint Chromium prints once it listens on its port. */
function waitForDevTools(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    let buffered = "";
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      const match = DEVTOOLS_LINE.exec(buffered);
      if (!match?.[1]) {
        buffered = buffered.slice(buffered.lastIndexOf("\n") + 1);
        return;
      }
      child.stderr?.off("data", onData);
      resolve(match[1]);
    };
    child.stderr?.on("data", onData);
  });
}

/** `ready`, unless Chromium exits or `timeoutMs` passes first; the error says which. */
function untilReady<T>(
  ready: Promise<T>,
  child: ChildProcess,
  timeoutMs: number,
  stderr: () => string,
  what: string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => finish(new Error(`Chromium did not ${what} within ${timeoutMs} ms${stderr()}`)),
      timeoutMs,
    );
    const onExit = (code: number | null, signal: string | null) =>
      finish(
        new Error(
          `Chromium exited before it was ready (code ${code}, signal ${signal})${stderr()}`,
        ),
      );
    const onError = (error: Error) => finish(error);
    const finish = (error?: Error, value?: T) => {
      clearTimeout(timer);
      child.off("exit", onExit);
      child.off("error", onError);
      if (error) reject(error);
      else resolve(value as T);
    };
    child.once("exit", onExit);
    child.once("error", onError);
    ready.then(
      (value) => finish(undefined, value),
      (error: unknown) => finish(error instanceof Error ? error : new Error(String(error))),
    );
  });
}

/** Asks the browser to close and waits, within a bound, for its process to end. */
async function askToClose(browser: Browser, child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  // Browser.close answers just before the process goes: wait for the exit, not the answer.
  void browser
    .newBrowserCDPSession()
    .then((session) => session.send("Browser.close"))
    .catch(() => {});
  await waitForExit(child, GRACEFUL_CLOSE_MS);
}

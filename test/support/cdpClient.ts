/**
 * A raw CDP client over one WebSocket, for tests that send the protocol as a stranger would
 * (through the service's `connectUrl`), with nothing of Playwright in between: flat sessions
 * (`sessionId` beside each command), every event kept, every text received kept so a test can
 * say a secret never crossed, and the close code the other side gave.
 */
import { WebSocket } from "ws";

/** A CDP error answer, as the other side sent it. */
export class CdpError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "CdpError";
  }
}

/** An upgrade the server refused: its HTTP status. */
export class CdpRefused extends Error {
  constructor(readonly status: number) {
    super(`the CDP upgrade was refused with HTTP ${status}`);
    this.name = "CdpRefused";
  }
}

/** A result or an event's params: JSON with no types here, read by the test that asked. */
// biome-ignore lint/suspicious/noExplicitAny: each test reads the fields of the method it sent
export type CdpJson = any;

export interface CdpEvent {
  method: string;
  params: CdpJson;
  sessionId?: string;
}

export type CdpAnswer = { result: CdpJson } | { error: CdpError };

export interface CdpClient {
  /** The command's result; a CDP error answer rejects with a CdpError. */
  send(method: string, params?: object, sessionId?: string): Promise<CdpJson>;
  /** The command's result or its CDP error, never a rejection for either. */
  answer(method: string, params?: object, sessionId?: string): Promise<CdpAnswer>;
  /** Sends text as it is (no id bookkeeping): for messages no well-behaved client sends. */
  sendRaw(text: string): void;
  events: CdpEvent[];
  /** The next event of `method` (matching `where`), or a failure naming it after `ms`. */
  waitForEvent(method: string, where?: (e: CdpEvent) => boolean, ms?: number): Promise<CdpEvent>;
  /** Every text the other side sent, in order. */
  received: string[];
  /** Settles when the connection closes, with the code and reason the other side gave. */
  closed: Promise<{ code: number; reason: string }>;
  readonly isOpen: boolean;
  close(): Promise<void>;
}

/** How long a command may wait for its answer. */
const ANSWER_MS = 10_000;

/** Opens `url`; an upgrade answered with an HTTP status rejects with CdpRefused. */
export async function connectCdp(url: string, timeoutMs = 10_000): Promise<CdpClient> {
  const socket = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: timeoutMs });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("unexpected-response", (_request, response) => {
      response.resume();
      reject(new CdpRefused(response.statusCode ?? 0));
      socket.terminate();
    });
    socket.once("error", reject);
  });
  let nextId = 0;
  const pending = new Map<number, { method: string; settle: (a: CdpAnswer) => void }>();
  const events: CdpEvent[] = [];
  const waiters = new Set<(e: CdpEvent) => void>();
  const received: string[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.once("close", (code, reason) => {
      for (const [, p] of pending) {
        p.settle({ error: new CdpError(p.method, -1, `the connection closed (${code})`) });
      }
      pending.clear();
      resolve({ code, reason: reason.toString() });
    });
  });
  socket.on("error", () => {});
  socket.on("message", (data: Buffer) => {
    const text = data.toString();
    received.push(text);
    const message = JSON.parse(text) as {
      id?: number;
      result?: unknown;
      error?: { code: number; message: string };
      method?: string;
      params?: unknown;
      sessionId?: string;
    };
    if (message.id !== undefined) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      waiting.settle(
        message.error
          ? { error: new CdpError(waiting.method, message.error.code, message.error.message) }
          : { result: message.result },
      );
      return;
    }
    if (message.method) {
      const event = {
        method: message.method,
        params: message.params,
        sessionId: message.sessionId,
      };
      events.push(event);
      for (const waiter of [...waiters]) waiter(event);
    }
  });
  const answer = (method: string, params: object = {}, sessionId?: string) =>
    new Promise<CdpAnswer>((settle) => {
      if (socket.readyState !== WebSocket.OPEN) {
        settle({ error: new CdpError(method, -1, "the connection is closed") });
        return;
      }
      const id = ++nextId;
      // Every wait bounded: a command the browser never answers fails the test in words.
      const timer = setTimeout(() => {
        pending.delete(id);
        settle({ error: new CdpError(method, -2, `no answer within ${ANSWER_MS} ms`) });
      }, ANSWER_MS);
      pending.set(id, {
        method,
        settle: (a) => {
          clearTimeout(timer);
          settle(a);
        },
      });
      socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  return {
    answer,
    async send(method, params, sessionId) {
      const a = await answer(method, params, sessionId);
      if ("error" in a) throw a.error;
      return a.result;
    },
    sendRaw: (text) => socket.send(text),
    events,
    waitForEvent(method, where = () => true, ms = 10_000) {
      const seen = events.find((e) => e.method === method && where(e));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`${method}: no such event within ${ms} ms`));
        }, ms);
        const waiter = (e: CdpEvent) => {
          if (e.method !== method || !where(e)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(e);
        };
        waiters.add(waiter);
      });
    },
    received,
    closed,
    get isOpen() {
      return socket.readyState === WebSocket.OPEN;
    },
    async close() {
      if (socket.readyState === WebSocket.CLOSED) return;
      socket.close();
      const timer = setTimeout(() => socket.terminate(), 2_000);
      await closed;
      clearTimeout(timer);
    },
  };
}

/**
 * A new page target (in `browserContextId` if given) attached as a flat session: its ids. With a
 * `url`, navigated there and loaded (see navigate).
 */
export async function openPage(
  cdp: CdpClient,
  url?: string,
  browserContextId?: string,
): Promise<{ targetId: string; sessionId: string }> {
  const { targetId } = await cdp.send("Target.createTarget", {
    url: "about:blank",
    ...(browserContextId ? { browserContextId } : {}),
  });
  const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
  if (url) await navigate(cdp, sessionId, url);
  return { targetId, sessionId };
}

/**
 * Page.navigate's answer; once the browser took the navigation, after the page's load event (or
 * `ms`, for a page that never fires it: a download, an error page).
 */
export async function navigate(
  cdp: CdpClient,
  sessionId: string,
  url: string,
  ms = 10_000,
): Promise<CdpAnswer> {
  await cdp.send("Page.enable", {}, sessionId);
  const since = cdp.events.length;
  const answer = await cdp.answer("Page.navigate", { url }, sessionId);
  if ("result" in answer && !answer.result.errorText) {
    await cdp
      .waitForEvent(
        "Page.loadEventFired",
        (e) => e.sessionId === sessionId && cdp.events.indexOf(e) >= since,
        ms,
      )
      .catch(() => {});
  }
  return answer;
}

/** An expression's value in the page of `sessionId` (promises awaited); a thrown one rejects. */
export async function evaluate(cdp: CdpClient, sessionId: string, expression: string) {
  const { result, exceptionDetails } = await cdp.send(
    "Runtime.evaluate",
    { expression, awaitPromise: true, returnByValue: true },
    sessionId,
  );
  if (exceptionDetails) {
    throw new Error(
      `evaluate: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`,
    );
  }
  return result.value;
}

/** The text of a session's page (its whole document, markup included); "" when there is none. */
export async function pageText(cdp: CdpClient, sessionId: string): Promise<string> {
  return String(
    await evaluate(cdp, sessionId, "document.documentElement?.outerHTML ?? ''").catch(() => ""),
  );
}

/**
 * What an answer says, for assertions on refusals: the error's message, or "accepted" with the
 * start of its result (a refusal by the service's policy starts "Wayfarer refuses <Method>").
 */
export function answerText(answer: CdpAnswer): string {
  return "error" in answer
    ? answer.error.message
    : `accepted: ${JSON.stringify(answer.result).slice(0, 200)}`;
}

/** The service's policy refused the command: a CDP error that starts by naming it. */
export function refusalPattern(method: string): RegExp {
  return new RegExp(`^Wayfarer refuses ${method.replace(/\./g, "\\.")}\\b`);
}

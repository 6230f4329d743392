/**
 * CDP over the pipe Chromium opens with `--remote-debugging-pipe`: it reads commands from its
 * fd 3 and writes answers and events to its fd 4, each message a JSON text ended by a NUL byte.
 * A browser driven this way listens on no port: only the process holding these two pipes can
 * speak to it.
 *
 * What the browser writes is read as a stream with a cap per message: a page can make the
 * browser write a message of any size (an exception whose text is 50 million characters is
 * 600 MB of JSON), and one held whole would pass V8's longest string and end the process. A
 * message past the cap is never held: its bytes are counted and dropped as they come, and only
 * its first and last bytes (where CDP puts its id, method and session) are told.
 */
import type { Readable, Writable } from "node:stream";

/**
 * The largest message read from a browser. A full-page screenshot or the accessibility tree of
 * a page of 16,000 links is a few MB to a few tens; held, parsed and handed on, a message costs
 * this process a few times its size, per session.
 */
export const BROWSER_MESSAGE_MAX_BYTES = 64 * 2 ** 20;

/** How much of an oversized message's start and end is kept (its id, method and session). */
const EDGE_BYTES = 256;

/** A message past the cap: how long it was, and its edges as text. */
export interface OversizedMessage {
  bytes: number;
  head: string;
  tail: string;
}

export interface CdpPipe {
  /** Writes one message; false when the pipe's buffer is full (wait for `onDrain`). */
  write(message: string): boolean;
  onMessage(listener: (text: string) => void): void;
  /** A message past the cap went by, dropped. */
  onOversized(listener: (message: OversizedMessage) => void): void;
  onClose(listener: () => void): void;
  /** Told once the browser has taken everything written; answers a function that stops it. */
  onDrain(listener: () => void): () => void;
  /** Bytes written but not yet taken by the browser. */
  readonly pending: number;
  /** The cap on one message from the browser. */
  readonly maxMessageBytes: number;
  close(): void;
}

/** The pipe of a child spawned with stdio[3] (its input) and stdio[4] (its output) as pipes. */
export function cdpPipe(
  toBrowser: Writable,
  fromBrowser: Readable,
  maxMessageBytes = BROWSER_MESSAGE_MAX_BYTES,
): CdpPipe {
  const messageListeners: ((text: string) => void)[] = [];
  const oversizedListeners: ((message: OversizedMessage) => void)[] = [];
  const closeListeners: (() => void)[] = [];
  const reader = new MessageReader(maxMessageBytes);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    for (const listener of closeListeners.splice(0)) listener();
  };
  fromBrowser.on("data", (chunk: Buffer) => {
    if (closed) return;
    reader.read(
      chunk,
      (text) => {
        for (const listener of messageListeners) listener(text);
      },
      (message) => {
        for (const listener of oversizedListeners) listener(message);
      },
    );
  });
  fromBrowser.on("close", close);
  fromBrowser.on("error", close);
  // The browser gone mid-write: its exit is what tells, not an unhandled error.
  toBrowser.on("error", close);
  return {
    write(message) {
      if (closed) return true;
      return toBrowser.write(`${message}\0`);
    },
    onMessage(listener) {
      messageListeners.push(listener);
    },
    onOversized(listener) {
      oversizedListeners.push(listener);
    },
    onClose(listener) {
      if (closed) listener();
      else closeListeners.push(listener);
    },
    onDrain(listener) {
      toBrowser.on("drain", listener);
      return () => toBrowser.off("drain", listener);
    },
    get pending() {
      return toBrowser.writableLength;
    },
    maxMessageBytes,
    close() {
      toBrowser.end();
      fromBrowser.destroy();
      close();
    },
  };
}

/** Cuts a byte stream at NULs into messages, holding at most `max` bytes of one. */
export class MessageReader {
  private parts: Buffer[] = [];
  private size = 0;
  /** The message under way is past the cap: only its edges are kept. */
  private skipping = false;
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);

  constructor(private readonly max: number) {}

  read(
    chunk: Buffer,
    message: (text: string) => void,
    oversized: (message: OversizedMessage) => void,
  ): void {
    let start = 0;
    let end = chunk.indexOf(0);
    while (end !== -1) {
      this.take(chunk.subarray(start, end));
      if (this.skipping) {
        const told = { bytes: this.size, head: text(this.head), tail: text(this.tail) };
        this.reset();
        oversized(told);
      } else {
        // One part is the usual case: no copy before decoding it.
        const parts = this.parts;
        const whole = parts.length === 1 ? parts[0]! : Buffer.concat(parts, this.size);
        this.reset();
        message(whole.toString("utf8"));
      }
      start = end + 1;
      end = chunk.indexOf(0, start);
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  }

  private take(part: Buffer): void {
    if (!this.skipping && this.size + part.length > this.max) {
      this.skipping = true;
      this.head = Buffer.from(edge([...this.parts, part], "start"));
      this.tail = Buffer.from(edge(this.parts, "end"));
      this.parts = [];
    }
    this.size += part.length;
    if (!this.skipping) {
      this.parts.push(part);
      return;
    }
    // Copied: a slice would keep the whole chunk it came from alive.
    this.tail = Buffer.from(
      part.length >= EDGE_BYTES
        ? part.subarray(part.length - EDGE_BYTES)
        : Buffer.concat([this.tail, part]).subarray(-EDGE_BYTES),
    );
  }

  private reset(): void {
    this.parts = [];
    this.size = 0;
    this.skipping = false;
    this.head = Buffer.alloc(0);
    this.tail = Buffer.alloc(0);
  }
}

/** The first or last EDGE_BYTES of what `parts` hold together, copying no more than that. */
function edge(parts: Buffer[], which: "start" | "end"): Buffer {
  const taken: Buffer[] = [];
  let length = 0;
  for (let i = 0; i < parts.length && length < EDGE_BYTES; i++) {
    const part = parts[which === "start" ? i : parts.length - 1 - i]!;
    if (which === "start") taken.push(part);
    else taken.unshift(part);
    length += part.length;
  }
  const joined = Buffer.concat(taken);
  return which === "start" ? joined.subarray(0, EDGE_BYTES) : joined.subarray(-EDGE_BYTES);
}

/** An edge of a message as text: a character cut at the edge is dropped, not mangled. */
function text(bytes: Buffer): string {
  return bytes.toString("utf8").replace(/^\uFFFD+|\uFFFD+$/g, "");
}

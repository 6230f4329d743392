/**
 * CDP over the pipe Chromium opens with `--remote-debugging-pipe`: it reads commands from its
 * fd 3 and writes answers and events to its fd 4, each message a JSON text ended by a NUL byte.
 * A browser driven this way listens on no port: only the process holding these two pipes can
 * speak to it.
 */
import type { Readable, Writable } from "node:stream";

export interface CdpPipe {
  /** Writes one message; false when the pipe's buffer is full (wait for `onDrain`). */
  write(message: string): boolean;
  onMessage(listener: (text: string) => void): void;
  onClose(listener: () => void): void;
  /** Told once the browser has taken everything written; answers a function that stops it. */
  onDrain(listener: () => void): () => void;
  /** Bytes written but not yet taken by the browser. */
  readonly pending: number;
  close(): void;
}

/** The pipe of a child spawned with stdio[3] (its input) and stdio[4] (its output) as pipes. */
export function cdpPipe(toBrowser: Writable, fromBrowser: Readable): CdpPipe {
  const messageListeners: ((text: string) => void)[] = [];
  const closeListeners: (() => void)[] = [];
  let parts: Buffer[] = [];
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    for (const listener of closeListeners.splice(0)) listener();
  };
  fromBrowser.on("data", (chunk: Buffer) => {
    let start = 0;
    let end = chunk.indexOf(0);
    while (end !== -1) {
      parts.push(chunk.subarray(start, end));
      // One part is the usual case: no copy before decoding it.
      const text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts)).toString("utf8");
      parts = [];
      for (const listener of messageListeners) listener(text);
      start = end + 1;
      end = chunk.indexOf(0, start);
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
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
    close() {
      toBrowser.end();
      fromBrowser.destroy();
      close();
    },
  };
}

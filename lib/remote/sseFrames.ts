/**
 * Server-sent events → the JSON text of each frame. Both framings of v1 services: data-only
 * frames (`data: {...}\n\n`, what our service and the 3.7 client speak) and frames with an
 * `event:` line before the data (newer services). Comments and other fields are skipped; a frame
 * whose data spans several `data:` lines is joined with newlines, as the SSE standard says.
 */
export async function* sseFrames(body: ReadableStream<Uint8Array>): AsyncIterable<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end = frameEnd(buffer);
      while (end) {
        const data = dataOf(buffer.slice(0, end.at));
        buffer = buffer.slice(end.at + end.length);
        if (data !== undefined) yield data;
        end = frameEnd(buffer);
      }
    }
    buffer += decoder.decode();
    const last = dataOf(buffer);
    if (last !== undefined) yield last;
  } finally {
    // A reader that stops early (the result came) lets the body go without waiting on it:
    // awaiting a fetch body's cancel can hang once the answer is in.
    void reader.cancel().catch(() => {});
  }
}

/** Where the first frame ends: a blank line, in any of the three line endings. */
function frameEnd(text: string): { at: number; length: number } | undefined {
  const m = /\r\n\r\n|\n\n|\r\r/.exec(text);
  return m ? { at: m.index, length: m[0].length } : undefined;
}

/** A frame's data (its `data:` lines joined), or undefined when it has none. */
function dataOf(frame: string): string | undefined {
  const lines: string[] = [];
  for (const line of frame.split(/\r\n|\n|\r/)) {
    if (!line.startsWith("data:")) continue;
    const value = line.slice(5);
    lines.push(value.startsWith(" ") ? value.slice(1) : value);
  }
  return lines.length ? lines.join("\n") : undefined;
}

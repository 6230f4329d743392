/**
 * The remote client's reading of the wire: SSE frames in both framings (data-only, as our
 * service and the 3.7 client speak; with an `event:` line, as newer services send), split
 * anywhere across chunks, in any line ending; and the service's address from WAYFARER_API_URL.
 */
import { describe, expect, it } from "vitest";
import { serviceBaseUrl } from "../../lib/remote/serviceAddress.js";
import { sseFrames } from "../../lib/remote/sseFrames.js";

/** A body that arrives in the pieces given. */
function body(...pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
}

async function read(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  for await (const frame of sseFrames(stream)) out.push(frame);
  return out;
}

describe("SSE frames", () => {
  it("reads data-only frames and frames with an event line, split anywhere", async () => {
    const text =
      'data: {"a":1}\n\n' +
      'event: log\ndata: {"b":2}\n\n' +
      ": a comment\n\n" +
      'id: 7\r\nevent: system\r\ndata: {"c":3}\r\n\r\n' +
      'data: {"d":\ndata: 4}\n\n';
    const whole = await read(body(text));
    expect(whole).toEqual(['{"a":1}', '{"b":2}', '{"c":3}', '{"d":\n4}']);
    // One byte at a time: the same frames.
    expect(await read(body(...text.split("")))).toEqual(whole);
  });

  it("keeps a last frame the stream ended without a blank line after", async () => {
    expect(await read(body('data: {"x":1}\n\ndata: {"y":2}'))).toEqual(['{"x":1}', '{"y":2}']);
  });
});

describe("the service's address", () => {
  it("appends /v1, keeps a path, and defaults to this machine off a deployment", () => {
    expect(serviceBaseUrl({ WAYFARER_API_URL: "https://wf.example.com" })).toBe(
      "https://wf.example.com/v1",
    );
    expect(serviceBaseUrl({ WAYFARER_API_URL: "https://wf.example.com/v1/" })).toBe(
      "https://wf.example.com/v1",
    );
    expect(serviceBaseUrl({ WAYFARER_API_URL: "http://10.0.0.5:3000/wayfarer" })).toBe(
      "http://10.0.0.5:3000/wayfarer/v1",
    );
    expect(serviceBaseUrl({})).toBe("http://127.0.0.1:3000/v1");
  });

  it("refuses the default on a deployment, and a URL that is not http(s) or carries credentials", () => {
    expect(() => serviceBaseUrl({ VERCEL: "1" })).toThrow(/WAYFARER_API_URL/);
    expect(() => serviceBaseUrl({ WAYFARER_API_URL: "ftp://x" })).toThrow(/http\(s\)/);
    expect(() => serviceBaseUrl({ WAYFARER_API_URL: "https://u:p@x.example" })).toThrow(
      /without credentials/,
    );
  });
});

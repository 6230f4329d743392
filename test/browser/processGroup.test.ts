import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { openInChild, waitUntilGone } from "../support/processes.js";

describe("a process that ends without close()", () => {
  for (const how of ["SIGTERM", "SIGINT", "exit"] as const) {
    it(`ends its browser and removes the temporary profile on ${how}`, async () => {
      const { child, info, exited } = await openInChild();
      expect(existsSync(info.profile)).toBe(true);
      if (how === "exit") child.stdin.write("exit\n");
      else child.kill(how);
      await exited;
      expect(await waitUntilGone(info.pid)).toEqual([]);
      expect(existsSync(dirname(info.profile))).toBe(false);
    });
  }
});

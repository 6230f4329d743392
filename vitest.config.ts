import { configDefaults, defineConfig } from "vitest/config";

/** The behaviour suite: what every engine must do alike. */
const BEHAVIOUR = [
  "test/handlers/**/*.test.ts",
  "test/agent/**/*.test.ts",
  "test/job/runJob.test.ts",
  "test/cache/actCache.test.ts",
  "test/cache/agentCache.test.ts",
];

/**
 * The behaviour suite's files the remote project leaves out: how the agent plans its steps
 * (by ids, by coordinates, a long sign-up) and replays its cache run in the service just as in
 * the library, over the same agentExecute stream and page calls that agent.test.ts,
 * agentConfig.test.ts, cua.test.ts and actCache.test.ts send through it; about 30 s of the run.
 */
const LOCAL_ONLY = [
  "test/agent/byId.test.ts",
  "test/agent/hybrid.test.ts",
  "test/agent/workshop.test.ts",
  "test/cache/agentCache.test.ts",
];

/**
 * Files that replace a module with vi.mock: each gets a module graph of its own, so its stand-in
 * never reaches another file and no other file's copy of the module hides it.
 */
const MOCKING = ["test/api/run.test.ts", "test/job/handler.test.ts"];

export default defineConfig({
  test: {
    globalSetup: ["test/support/globalSetup.ts", "test/support/buildService.ts"],
    setupFiles: ["test/support/fileBoundary.ts", "test/support/noLeftovers.ts"],
    pool: "forks",
    // Files share their worker's modules (Playwright, the AI SDK, Fastify load once per worker,
    // not once per file): 655 s against 844 s for the whole run, same machine, 2026-11-29.
    // fileBoundary.ts puts back what a file changes in the process.
    isolate: false,
    // Two files at a time, one per core: 1,222 s one at a time against 827 and 826 s with two
    // (same machine, 2026-11-27, both two-worker runs passing). One at a time was chosen when
    // a page of twenty frames missed a 30 s reload beside another browser file; that reload now
    // takes 6-7 s with two workers.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Browser tests share two cores; a retry would hide a real flake, so there is none.
    retry: 0,
    projects: [
      {
        extends: true,
        test: {
          name: "local",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...MOCKING],
        },
      },
      { extends: true, test: { name: "mocking", include: MOCKING, isolate: true } },
      // The behaviour suite again, every operation through the JSON loopback engine
      // (test/support/loopback.ts): requests, results, events and errors as text only. Only with
      // WAYFARER_TEST_LOOPBACK=1: the remote project below sends the same suite through a real
      // wire and service, and the whole run must stay well under 15 minutes on two cores.
      ...(process.env.WAYFARER_TEST_LOOPBACK === "1"
        ? [
            {
              extends: true as const,
              test: {
                name: "loopback",
                include: BEHAVIOUR,
                env: { WAYFARER_TEST_ENGINE: "loopback" },
              },
            },
          ]
        : []),
      {
        // The behaviour suite again, every client env "REMOTE" on a real service on 127.0.0.1.
        extends: true,
        test: {
          name: "remote",
          // And the page API over the service's CDP proxy: frames, shadow roots, tabs, dialogs.
          include: [...BEHAVIOUR, "test/browser/deepLocator.test.ts", "test/browser/pages.test.ts"],
          exclude: [...configDefaults.exclude, ...LOCAL_ONLY],
          setupFiles: [
            "test/support/fileBoundary.ts",
            "test/support/noLeftovers.ts",
            "test/support/remoteService.ts",
          ],
          env: { WAYFARER_TEST_ENGINE: "remote" },
        },
      },
    ],
  },
});

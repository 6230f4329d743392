/**
 * The act's last mile (issue 34, item 2): from the model's answer leaving the model server to
 * the click's request reaching the page's server. The page is a tea shop whose "Add to cart"
 * buttons fetch `/clicked` from the page's own server; the model kit answers at once, through a
 * tap in this process that notes when each answer has been written to its socket. Both clocks
 * are this process's, so the figure is one subtraction: the click's arrival minus the last
 * model answer written before it. Per side of sides.ts (each a service over HTTP), and the
 * library in-process (Client, env LOCAL), which separates the service's share: the act request's
 * answer path is not in the figure, only what runs between the model and the page.
 *
 *   BENCH_SECTIONS=actLastMile npm run bench:service      BENCH_ACTS=30 (default 15 per side)
 */
import { Client } from "../../lib/index.js";
import { median } from "../median.js";
import { BENCH_MODEL, openSession, postTo, type ServiceSide, startSides } from "./sides.js";
import { close, startModelTap, startShop } from "./taps.js";

const INSTRUCTION = "add green tea to the cart";

/** One way to ask for the act: a service's session, or the library in-process. */
interface Actor {
  name: string;
  act(): Promise<boolean>;
  stop(): Promise<void>;
}

async function serviceActor(side: ServiceSide, pageUrl: string): Promise<Actor> {
  const sessionId = await openSession(side, pageUrl);
  return {
    name: side.name,
    async act() {
      const { json } = await postTo(side, `/sessions/${sessionId}/act`, { input: INSTRUCTION });
      return (
        (json.data as { result?: { success?: boolean } } | undefined)?.result?.success === true
      );
    },
    async stop() {
      await postTo(side, `/sessions/${sessionId}/end`, {});
    },
  };
}

async function libraryActor(modelUrl: string, pageUrl: string): Promise<Actor> {
  const client = new Client({
    env: "LOCAL",
    verbose: 0,
    disablePino: true,
    model: { ...BENCH_MODEL, baseURL: modelUrl },
  });
  await client.init();
  await client.context.activePage()!.goto(pageUrl);
  return {
    name: "library in-process",
    act: async () => (await client.act(INSTRUCTION)).success,
    stop: () => client.close(),
  };
}

export async function run(setup: { modelUrl: string }): Promise<void> {
  const ACTS = Number(process.env.BENCH_ACTS ?? 15);
  const shop = await startShop();
  const tap = await startModelTap(setup.modelUrl);
  const pageUrl = `${shop.origin}/shop.html`;
  const sides = await startSides({ modelUrl: tap.url, sessions: 1 });
  const actors: Actor[] = [];
  try {
    for (const side of sides) actors.push(await serviceActor(side, pageUrl));
    actors.push(await libraryActor(tap.url, pageUrl));
    /** Per act: the last mile, the whole act, up to the model's answer, after the click. */
    type Parts = { mile: number; act: number; toAnswer: number; afterClick: number };
    const measured = new Map<string, Parts[]>(actors.map((a) => [a.name, []]));
    const failures: string[] = [];

    const once = async (actor: Actor, counted: boolean) => {
      const clicksBefore = shop.clicks.length;
      const t0 = performance.now();
      const ok = await actor.act();
      const t1 = performance.now();
      // The click's request may still be on its way when the act's answer is.
      for (let waited = 0; shop.clicks.length === clicksBefore && waited < 2_000; waited += 5)
        await new Promise((r) => setTimeout(r, 5));
      const clickedAt = shop.clicks[clicksBefore];
      const answeredAt = tap.answered
        .filter((t) => clickedAt !== undefined && t <= clickedAt)
        .at(-1);
      if (!ok || clickedAt === undefined || answeredAt === undefined || answeredAt < t0) {
        failures.push(`${actor.name}: ${ok ? "no click reached the page" : "the act failed"}`);
        return;
      }
      if (!counted) return;
      measured.get(actor.name)!.push({
        mile: clickedAt - answeredAt,
        act: t1 - t0,
        toAnswer: answeredAt - t0,
        // Negative when the act answered before its click's request reached the page.
        afterClick: t1 - clickedAt,
      });
    };

    for (const actor of actors) await once(actor, false);
    // Rotated, not reversed: a reversed order puts the same side twice in a row at each turn,
    // and an act right after its own click waits for the page to settle.
    for (let round = 0; round < ACTS; round++) {
      const k = round % actors.length;
      for (const actor of [...actors.slice(k), ...actors.slice(0, k)]) await once(actor, true);
    }

    console.log(
      `act's last mile: model answer written → click's request at the page's server, median of ${ACTS} acts per side, in rotating turns; beside it the whole act (request to answer) and its parts up to the model's answer and after the click`,
    );
    const p50 = (parts: Parts[], key: keyof Parts) => median(parts.map((p) => p[key]));
    const first = p50(measured.get(actors[0]!.name)!, "mile");
    for (const actor of actors) {
      const parts = measured.get(actor.name)!;
      if (!parts.length) {
        console.log(`  ${actor.name}: no act measured`);
        continue;
      }
      const m = p50(parts, "mile");
      const miles = parts.map((p) => p.mile).sort((a, b) => a - b);
      console.log(
        `  ${actor.name.padEnd(20)} last mile p50 ${m.toFixed(1)} ms (min ${miles[0]!.toFixed(1)}, max ${miles.at(-1)!.toFixed(1)}), ${(m / first).toFixed(2)}×; act p50 ${p50(parts, "act").toFixed(0)} ms (to the answer ${p50(parts, "toAnswer").toFixed(0)}, after the click ${p50(parts, "afterClick").toFixed(0)})`,
      );
    }
    if (failures.length) console.log(`  failed: ${failures.join("; ")}`);
  } finally {
    for (const actor of actors) await actor.stop().catch(() => {});
    for (const side of sides) await side.stop().catch(() => {});
    await close(tap.server);
    await close(shop.server);
  }
}

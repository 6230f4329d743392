/**
 * Issue 44, item 3: `extract` with a schema. Per side of sides.ts, each a fresh process: the
 * process's first extract (a session started and sent to the shop, nothing asked of a model
 * before), then EXTRACTS more in rotating turns across the sides. Each figure: the whole extract
 * as its caller sees it, and the part from the request to the first model request reaching the
 * model (a tap in front of the model kit notes each arrival on this process's clock). Every
 * extract asks in its own words, so nothing is answered from a cache.
 *
 *   BENCH_SECTIONS=extract npm run bench:service      BENCH_EXTRACTS=30 (default 20 per side)
 */
import { median } from "../median.js";
import { openSession, postTo, type ServiceSide, startSides } from "./sides.js";
import { close, startModelTap, startShop } from "./taps.js";

/** The shop model answers `{item}` from the cart line when the schema asks for `item`. */
const SCHEMA = {
  type: "object",
  properties: { item: { type: "string", description: "the item in the cart" } },
  required: ["item"],
};

/** One structured-output request to the kit, as a side's first extract sends it. */
async function warmKit(modelUrl: string): Promise<void> {
  const answer = await fetch(`${modelUrl}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-bench" },
    body: JSON.stringify({
      model: "gpt-4.1-mini",
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "Instruction: which item\n\nPage outline:\nCart: empty" },
          ],
        },
      ],
      text: { format: { type: "json_schema", name: "answer", schema: SCHEMA } },
    }),
  });
  await answer.text();
}

interface Timing {
  /** Request to answer. */
  ms: number;
  /** Request to the first model request's arrival at the model. */
  toModel: number;
  /** The last model answer written to the extract's answer: the model call's own end. */
  fromModel: number;
}

export async function run(setup: { modelUrl: string }): Promise<void> {
  const EXTRACTS = Number(process.env.BENCH_EXTRACTS ?? 20);
  const shop = await startShop();
  const tap = await startModelTap(setup.modelUrl);
  const pageUrl = `${shop.origin}/shop.html`;
  // The kit and the tap answer their own first request slower (msw's first match): paid here,
  // not by the side that happens to extract first.
  for (let i = 0; i < 3; i++) await warmKit(tap.url);
  const sides = await startSides({ modelUrl: tap.url, sessions: 2 });
  const sessions = new Map<ServiceSide, string>();
  const opened: [ServiceSide, string][] = [];
  /** A session of `side` sent to the shop; the one its extracts go to from now on. */
  const open = async (side: ServiceSide) => {
    const sessionId = await openSession(side, pageUrl);
    opened.push([side, sessionId]);
    sessions.set(side, sessionId);
  };
  try {
    for (const side of sides) await open(side);
    let asked = 0;
    const failures: string[] = [];
    const extract = async (side: ServiceSide): Promise<Timing | undefined> => {
      const seen = tap.asked.length;
      const t0 = performance.now();
      const answer = await postTo(side, `/sessions/${sessions.get(side)}/extract`, {
        instruction: `which item is in the cart (ask ${++asked})`,
        schema: SCHEMA,
        options: {},
      });
      const arrived = tap.asked[seen];
      const done = performance.now();
      const lastAnswer = tap.answered.at(-1);
      const item = (answer.json.data as { result?: { item?: string } } | undefined)?.result?.item;
      if (
        answer.status !== 200 ||
        item !== "empty" ||
        arrived === undefined ||
        lastAnswer === undefined ||
        lastAnswer < arrived
      ) {
        failures.push(
          `${side.name}: ${answer.status} ${JSON.stringify(answer.json).slice(0, 200)}`,
        );
        return undefined;
      }
      return { ms: done - t0, toModel: arrived - t0, fromModel: done - lastAnswer };
    };

    // Each side's first extract, one side at a time so no other works meanwhile.
    // Every browser launched and its page loaded settles first: a side's first extract must not
    // share the machine with another side's start.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 2_000));
    await settle();
    const first = new Map<ServiceSide, Timing | undefined>();
    for (const side of sides) first.set(side, await extract(side));
    // A second session's first extract, in a process that has extracted once: what is paid
    // per session (its browser's first capture) apart from what is paid per process.
    const secondFirst = new Map<ServiceSide, Timing | undefined>();
    for (const side of sides) {
      const before = sessions.get(side)!;
      await open(side);
      await settle();
      secondFirst.set(side, await extract(side));
      sessions.set(side, before);
    }
    const later = new Map<ServiceSide, Timing[]>(sides.map((s) => [s, []]));
    for (let round = 0; round < EXTRACTS; round++) {
      const k = round % sides.length;
      for (const side of [...sides.slice(k), ...sides.slice(0, k)]) {
        const timing = await extract(side);
        if (timing) later.get(side)!.push(timing);
      }
    }

    console.log(
      `extract with a schema, one session per side on the shop: the process's first extract, then p50 of ${EXTRACTS} more in rotating turns; "to the model": request → the first model request's arrival; "after it": the model's last answer written → the extract's answer`,
    );
    const reference = sides.find((s) => s.name === "reference");
    const p50 = (side: ServiceSide, key: keyof Timing) =>
      median(later.get(side)!.map((t) => t[key]));
    for (const side of sides) {
      if (!later.get(side)!.length) {
        console.log(`  ${side.name}: no extract measured`);
        continue;
      }
      const f = first.get(side);
      const f2 = secondFirst.get(side);
      const vs = (key: keyof Timing) =>
        reference && reference !== side && later.get(reference)!.length
          ? ` (${(p50(side, key) / p50(reference, key)).toFixed(2)}× the reference)`
          : "";
      console.log(
        `  ${side.name.padEnd(12)} extract p50 ${p50(side, "ms").toFixed(1)} ms${vs("ms")}, to the model ${p50(side, "toModel").toFixed(1)} ms${vs("toModel")}, after it ${p50(side, "fromModel").toFixed(1)} ms; first extract ${f ? `${f.ms.toFixed(0)} ms (to the model ${f.toModel.toFixed(0)}, after it ${f.fromModel.toFixed(0)}), ${(f.ms / p50(side, "ms")).toFixed(2)}× later ones` : "failed"}; a second session's first ${f2 ? `${f2.ms.toFixed(0)} ms (${(f2.ms / p50(side, "ms")).toFixed(2)}×)` : "failed"}`,
      );
    }
    if (failures.length) console.log(`  failed: ${failures.slice(0, 5).join("; ")}`);
  } finally {
    for (const [side, id] of sessions)
      await postTo(side, `/sessions/${id}/end`, {}).catch(() => {});
    for (const side of sides) await side.stop().catch(() => {});
    await close(tap.server);
    await close(shop.server);
  }
}

/**
 * `npm run test:fidelity`: a thousand random sessions per pi (FIDELITY_RUNS,
 * default 1,000) written by pi's coding agent 1.6.0 and by the seed's
 * harness 0.83.0 (./trials.ts), imported into each backend, each held
 * against what that pi makes of it. Prints how many agreed, and how many
 * met each documented difference from the harness; fails on the first
 * session that disagrees, naming its seed (FIDELITY_SEED replays a run).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Backend, memoryBackend, pgliteBackend, postgresBackend } from "../store/backends.js";
import { piDirectory } from "../support/pi-sessions.js";
import { type Documented, harnessOps, harnessTrial, piOps, piTrial } from "./trials.js";

const RUNS = Number(process.env.FIDELITY_RUNS ?? 1000);
const SEED = Number(process.env.FIDELITY_SEED ?? Date.now() % 2 ** 31);

describe.each([
	["memory", memoryBackend],
	["pglite", pgliteBackend],
	["postgres", postgresBackend],
] as const)("%s", (name, open) => {
	let backend: Backend;
	let files: ReturnType<typeof piDirectory>;
	beforeAll(async () => {
		backend = await open();
		files = piDirectory();
	});
	afterAll(async () => {
		await backend?.dispose();
		files?.dispose();
	});

	/** Runs `trial` on RUNS samples of `ops`, one at a time, and counts; the first disagreement fails with its seed. */
	async function count<T>(
		oracle: string,
		ops: fc.Arbitrary<T>,
		trial: (ws: string, ops: T) => Promise<Documented[] | undefined>,
	) {
		const samples = fc.sample(ops, { seed: SEED, numRuns: RUNS });
		const documented = new Map<Documented, number>();
		let agreed = 0;
		for (const [index, sample] of samples.entries()) {
			try {
				for (const difference of (await trial(`fidelity-${index}`, sample)) ?? [])
					documented.set(difference, (documented.get(difference) ?? 0) + 1);
				agreed++;
			} catch (error) {
				throw new Error(
					`${oracle} on ${name}: session ${index + 1} of ${RUNS} (FIDELITY_SEED=${SEED}) disagreed after ${agreed} agreed: ${(error as Error).message}\nops: ${JSON.stringify(sample)}`,
				);
			}
		}
		const notes = [...documented].map(([difference, n]) => `${n} met "${difference}"`).join(", ");
		process.stdout.write(
			`fidelity: ${oracle} on ${name}: ${agreed} of ${RUNS} sessions agreed${notes ? ` (${notes})` : ""} (seed ${SEED})\n`,
		);
		expect(agreed).toBe(RUNS);
	}

	it(`agrees with pi's coding agent 1.6.0 on ${RUNS} sessions it wrote`, () =>
		count("pi 1.6.0", piOps, async (ws, ops) => {
			await piTrial(backend.store, ws, files.dir, ops);
			return undefined;
		}));

	it(`agrees with the harness 0.83.0 on ${RUNS} sessions it wrote, where the rules follow it`, () =>
		count("harness 0.83.0", harnessOps, (ws, ops) => harnessTrial(backend.store, ws, files.dir, ops)));
});

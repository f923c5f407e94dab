/**
 * The oracles are the releases package.json pins, loaded from their own
 * modules: pi's coding agent 1.6.0 (pi-oracle.ts) and the seed's harness,
 * pi-agent-core 0.83.0 (pi-harness.ts).
 */
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

const versionOf = (dir: string): string =>
	(
		JSON.parse(readFileSync(new URL(`../../node_modules/${dir}/package.json`, import.meta.url), "utf8")) as {
			version: string;
		}
	).version;

it("compares with pi's coding agent 1.6.0 and the harness 0.83.0, by their own functions", async () => {
	expect(versionOf("@earendil-works/pi-coding-agent")).toBe("1.6.0");
	expect(versionOf("pi-agent-core-0.83")).toBe("0.83.0");
	const pi = await import("./pi-oracle.js");
	const harness = await import("./pi-harness.js");
	for (const fn of [
		pi.buildSessionContext,
		pi.SessionManager,
		pi.getUsageCostBreakdown,
		pi.calculateContextTokens,
	])
		expect(fn).toBeTypeOf("function");
	for (const fn of [harness.Session, harness.InMemorySessionStorage, harness.JsonlSessionStorage])
		expect(fn).toBeTypeOf("function");
});

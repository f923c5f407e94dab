/**
 * The follower's positions file (src/follow/positions.ts): a write that
 * fails is reported and does not stop the ones after it, and followers of
 * different destinations sharing one file keep each other's positions.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type FilePosition, Positions } from "../../src/follow/positions.js";
import { within } from "../support/expect.js";

const root = mkdtempSync(join(tmpdir(), "positions-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const position = (sessionId: string, offset: number): FilePosition => ({
	sessionId,
	offset,
	lines: 2,
	lastEntryId: "e1",
	lastLineHash: "0".repeat(64),
	lastLineBytes: 10,
});

describe("the follower's positions", () => {
	it("reports a write that fails, and writes again when it can", async () => {
		const dir = join(root, "blocked");
		const path = join(dir, "positions.json");
		const failures: Error[] = [];
		let failed: () => void = () => {};
		const reported = new Promise<void>((resolve) => {
			failed = resolve;
		});
		const positions = await Positions.open(path, "service", (error) => {
			failures.push(error);
			failed();
		});
		// A file where the positions' directory should be: every write fails until it is gone.
		writeFileSync(dir, "not a directory");
		positions.set("/sessions/a.jsonl", position("a", 100));
		await within(5000, "the failed write's report", reported);
		expect(failures[0]?.message).toContain(path);

		rmSync(dir);
		mkdirSync(dir);
		positions.set("/sessions/b.jsonl", position("b", 200));
		await positions.flush();
		expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
			service: { "/sessions/a.jsonl": position("a", 100), "/sessions/b.jsonl": position("b", 200) },
		});
		expect((await Positions.open(path, "service")).get("/sessions/a.jsonl")).toEqual(position("a", 100));
	});

	it("keeps the positions of other destinations written to the same file meanwhile", async () => {
		const path = join(root, "shared.json");
		const one = await Positions.open(path, "one");
		const two = await Positions.open(path, "two");
		one.set("/sessions/a.jsonl", position("a", 1));
		await one.flush();
		two.set("/sessions/b.jsonl", position("b", 2));
		await two.flush();
		expect((await Positions.open(path, "one")).get("/sessions/a.jsonl")).toEqual(position("a", 1));
		expect((await Positions.open(path, "two")).get("/sessions/b.jsonl")).toEqual(position("b", 2));
	});
});

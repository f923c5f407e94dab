/**
 * A follower stopping (Ctrl-C, SIGTERM) while it has work: the sync under
 * way finishes, files still waiting for a slot and retries waiting for
 * their time are not started, and it is idle once stopped; a file deleted
 * while it was being sent leaves no position behind. The sink here is
 * held by the test so that "under way" and "waiting" are states the test
 * chooses, not timings; the follower against a real service is
 * follower.test.ts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { FollowEvent } from "../../src/follow/events.js";
import { Follower } from "../../src/follow/follower.js";
import { Positions } from "../../src/follow/positions.js";
import { type ContinueAnswer, type ContinueRequest, FollowError, type Sink } from "../../src/follow/sink.js";
import { within } from "../support/expect.js";
import { SessionManager } from "../support/pi-oracle.js";
import { piAssistant, piUsage, piUser } from "../support/pi-sessions.js";

const root = mkdtempSync(join(tmpdir(), "follow-stop-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A sessions directory with `count` files pi wrote. */
function sessions(name: string, count: number): string {
	const dir = join(root, name);
	for (let i = 0; i < count; i++) {
		const pi = SessionManager.create(`/work/${i}`, dir);
		pi.appendMessage(piUser(`hello ${i}`));
		pi.appendMessage(piAssistant("hi", piUsage(1, 1, 0, 0, 0)));
	}
	return dir;
}

/** A sink whose every request waits until the test answers it. */
function heldSink() {
	const requests: Array<{ request: ContinueRequest; answer(error?: Error): void }> = [];
	let arrived: () => void = () => {};
	const sink: Sink = {
		continueSession: (request) =>
			new Promise<ContinueAnswer>((resolve, reject) => {
				requests.push({
					request,
					answer: (error) =>
						error
							? reject(error)
							: resolve({ sessionId: "s", created: true, appended: 2, held: 0, lastSeq: 2 }),
				});
				arrived();
			}),
		close: async () => {},
	};
	return {
		sink,
		requests,
		/** Resolves once `n` requests have arrived. */
		async until(n: number) {
			while (requests.length < n) await new Promise<void>((resolve) => (arrived = resolve));
		},
	};
}

describe("a follower stopping", () => {
	it("finishes the sync under way and starts none of the files waiting for a slot", async () => {
		const dir = sessions("queued", 3);
		const held = heldSink();
		const follower = new Follower({
			paths: [dir],
			sink: held.sink,
			positions: await Positions.open(join(root, "queued.json"), "test"),
			concurrency: 1,
		});
		await follower.start();
		await within(5000, "the first request", held.until(1));
		const stopped = follower.stop();
		held.requests[0]?.answer();
		await within(5000, "the stop", stopped);
		expect(held.requests).toHaveLength(1);
		await within(1000, "idle after the stop", follower.idle());
	});

	it("does not wait out a retry's backoff: an unavailable service is not tried again once stopped", async () => {
		const dir = sessions("retrying", 1);
		const held = heldSink();
		const follower = new Follower({
			paths: [dir],
			sink: held.sink,
			positions: await Positions.open(join(root, "retrying.json"), "test"),
			retryMinMs: 60_000,
		});
		await follower.start();
		await within(5000, "the first request", held.until(1));
		const stopped = follower.stop();
		held.requests[0]?.answer(new FollowError("unavailable", "connection refused"));
		await within(5000, "the stop", stopped);
		await within(1000, "idle after the stop", follower.idle());
		expect(held.requests).toHaveLength(1);
	});

	it("forgets a file deleted while its lines were being sent", async () => {
		const dir = sessions("deleted", 1);
		const file = join(dir, readdirSync(dir)[0] as string);
		const held = heldSink();
		let removed: (event: FollowEvent) => void = () => {};
		const gone = new Promise<FollowEvent>((resolve) => (removed = resolve));
		const state = join(root, "deleted.json");
		const follower = new Follower({
			paths: [dir],
			sink: held.sink,
			positions: await Positions.open(state, "test"),
			onEvent: (event) => event.kind === "removed" && removed(event),
		});
		await follower.start();
		await within(5000, "the first request", held.until(1));
		rmSync(file);
		expect(await within(5000, "the file's removal", gone)).toEqual({ kind: "removed", path: file });
		held.requests[0]?.answer();
		await within(5000, "idle", follower.idle());
		await follower.stop();
		expect(JSON.parse(readFileSync(state, "utf8"))).toEqual({ test: {} });
	});
});

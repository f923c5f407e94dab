/**
 * Subscribers of the same selection get one execution and one encoding of
 * each shared event (src/app/shared-results.ts), and still each receive every
 * event of their own stream; different selections, callers that opt out, and
 * subscriptions that fail to start behave as without the plugin.
 */
import { createSchema, createYoga, type Plugin } from "graphql-yoga";
import { describe, expect, it } from "vitest";
import {
	type SharedResultsOptions,
	type SharedResultsStats,
	useSharedEventResults,
} from "../../src/app/shared-results.js";

interface Tick {
	n: number;
	text: string;
}

/** One object per event, pushed to every listener of a channel (like a session feed). */
class Hub {
	private readonly listeners = new Set<(tick: Tick) => void>();
	resolved = 0;
	get listening(): number {
		return this.listeners.size;
	}
	publish(tick: Tick): void {
		for (const listener of this.listeners) listener(tick);
	}
	listen(): AsyncIterableIterator<Tick> {
		const queue: Tick[] = [];
		let wake: (() => void) | undefined;
		let done = false;
		const listener = (tick: Tick) => {
			queue.push(tick);
			wake?.();
		};
		this.listeners.add(listener);
		const iterator: AsyncIterableIterator<Tick> = {
			next: async () => {
				while (!done && queue.length === 0) await new Promise<void>((r) => (wake = r));
				if (done) return { done: true, value: undefined };
				return { done: false, value: queue.shift() as Tick };
			},
			return: async () => {
				done = true;
				this.listeners.delete(listener);
				wake?.();
				return { done: true, value: undefined };
			},
			[Symbol.asyncIterator]: () => iterator,
		};
		return iterator;
	}
}

function server(hub: Hub, plugins: Plugin[]) {
	return createYoga({
		logging: false,
		plugins,
		schema: createSchema({
			typeDefs: /* GraphQL */ `
				type Tick { n: Int! text(upper: Boolean): String! }
				type Query { ok: Boolean }
				type Subscription { ticks(channel: String!, from: Int): Tick! }
			`,
			resolvers: {
				Tick: {
					text: (tick: Tick, { upper }: { upper?: boolean }) => {
						hub.resolved += 1;
						return upper ? tick.text.toUpperCase() : tick.text;
					},
				},
				Subscription: {
					ticks: {
						subscribe: (_: unknown, { channel }: { channel: string }) => {
							if (channel !== "main") throw new Error(`no channel ${channel}`);
							return hub.listen();
						},
						resolve: (tick: Tick) => tick,
					},
				},
			},
		}),
	});
}

const QUERY =
	'subscription($from: Int, $upper: Boolean) { ticks(channel: "main", from: $from) { n text(upper: $upper) } }';

/** An SSE subscriber reading `count` events (or the whole response when it is not a stream). */
async function subscribe(
	yoga: ReturnType<typeof server>,
	variables: Record<string, unknown>,
	query = QUERY,
	operationName?: string,
) {
	const response = await yoga.fetch("http://localhost/graphql", {
		method: "POST",
		headers: { "content-type": "application/json", accept: "text/event-stream" },
		body: JSON.stringify({ query, variables, operationName }),
	});
	const reader = (response.body as ReadableStream<Uint8Array>).getReader();
	const decoder = new TextDecoder();
	let buffer = "";
	return {
		async take(count: number): Promise<unknown[]> {
			const events: unknown[] = [];
			while (events.length < count) {
				const chunk = await reader.read();
				if (chunk.done) break;
				buffer += decoder.decode(chunk.value, { stream: true });
				for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
					const frame = buffer.slice(0, end);
					buffer = buffer.slice(end + 2);
					const data = /^data: (.*)$/m.exec(frame)?.[1];
					if (frame.startsWith("event: next") && data) events.push(JSON.parse(data));
				}
			}
			return events;
		},
		close: () => reader.cancel(),
	};
}

async function until(condition: () => boolean): Promise<void> {
	while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

const everyone = { contextKey: () => "all" };

describe("shared subscription results", () => {
	it("executes and encodes each event once for subscribers of one selection, whatever their root arguments", async () => {
		const hub = new Hub();
		const stats: SharedResultsStats = { executions: 0, reused: 0, encodings: 0 };
		const yoga = server(hub, [useSharedEventResults(everyone, stats)]);
		const subscribers = await Promise.all([0, 1, 2, 3, 4].map((from) => subscribe(yoga, { from })));
		const received = subscribers.map((s) => s.take(3));
		await until(() => hub.listening === 5);
		for (let n = 1; n <= 3; n++) hub.publish({ n, text: `tick ${n}` });

		const expected = [1, 2, 3].map((n) => ({ data: { ticks: { n, text: `tick ${n}` } } }));
		for (const events of await Promise.all(received)) expect(events).toEqual(expected);
		expect(hub.resolved).toBe(3);
		expect(stats).toEqual({ executions: 3, reused: 12, encodings: 3 });
		await Promise.all(subscribers.map((s) => s.close()));
		await until(() => hub.listening === 0);
	});

	it("executes once per distinct selection variable", async () => {
		const hub = new Hub();
		const yoga = server(hub, [useSharedEventResults(everyone)]);
		const plain = [await subscribe(yoga, { upper: false }), await subscribe(yoga, { upper: false })];
		const upper = [await subscribe(yoga, { upper: true }), await subscribe(yoga, { upper: true })];
		const received = [...plain, ...upper].map((s) => s.take(1));
		await until(() => hub.listening === 4);
		hub.publish({ n: 1, text: "tick" });

		const [a, b, c, d] = await Promise.all(received);
		expect([a, b]).toEqual([
			[{ data: { ticks: { n: 1, text: "tick" } } }],
			[{ data: { ticks: { n: 1, text: "tick" } } }],
		]);
		expect([c, d]).toEqual([
			[{ data: { ticks: { n: 1, text: "TICK" } } }],
			[{ data: { ticks: { n: 1, text: "TICK" } } }],
		]);
		expect(hub.resolved).toBe(2);
		await Promise.all([...plain, ...upper].map((s) => s.close()));
	});

	it("tells an omitted variable (its default applies) from an explicit null", async () => {
		const hub = new Hub();
		const yoga = server(hub, [useSharedEventResults(everyone)]);
		const query = 'subscription($upper: Boolean = true) { ticks(channel: "main") { n text(upper: $upper) } }';
		const subscribers = [await subscribe(yoga, {}, query), await subscribe(yoga, { upper: null }, query)];
		const received = subscribers.map((s) => s.take(1));
		await until(() => hub.listening === 2);
		hub.publish({ n: 1, text: "tick" });

		expect(await Promise.all(received)).toEqual([
			[{ data: { ticks: { n: 1, text: "TICK" } } }],
			[{ data: { ticks: { n: 1, text: "tick" } } }],
		]);
		await Promise.all(subscribers.map((s) => s.close()));
	});

	it("keys each operation of a document by the variables its own selection uses", async () => {
		const hub = new Hub();
		const yoga = server(hub, [useSharedEventResults(everyone)]);
		// $x only picks the stream in A (so A's subscribers share across it), but it is B's selection.
		const query = `
			subscription A($x: Int) { ticks(channel: "main", from: $x) { n text } }
			subscription B($x: Boolean) { ticks(channel: "main") { n text(upper: $x) } }`;
		const subscribers = [
			await subscribe(yoga, { x: 1 }, query, "A"),
			await subscribe(yoga, { x: true }, query, "B"),
			await subscribe(yoga, { x: false }, query, "B"),
		];
		const received = subscribers.map((s) => s.take(1));
		await until(() => hub.listening === 3);
		hub.publish({ n: 1, text: "tick" });

		expect(await Promise.all(received)).toEqual([
			[{ data: { ticks: { n: 1, text: "tick" } } }],
			[{ data: { ticks: { n: 1, text: "TICK" } } }],
			[{ data: { ticks: { n: 1, text: "tick" } } }],
		]);
		await Promise.all(subscribers.map((s) => s.close()));
	});

	it.each<[string, SharedResultsOptions]>([
		["callers the context key leaves out", { contextKey: () => undefined }],
		["results their execution marks unshareable", { contextKey: () => "all", shareable: () => false }],
	])("shares nothing for %s", async (_, options) => {
		const hub = new Hub();
		const yoga = server(hub, [useSharedEventResults(options)]);
		const subscribers = [await subscribe(yoga, {}), await subscribe(yoga, {})];
		const received = subscribers.map((s) => s.take(1));
		await until(() => hub.listening === 2);
		hub.publish({ n: 1, text: "tick" });

		for (const events of await Promise.all(received))
			expect(events).toEqual([{ data: { ticks: { n: 1, text: "tick" } } }]);
		expect(hub.resolved).toBe(2);
		await Promise.all(subscribers.map((s) => s.close()));
	});

	it("reports a subscription that fails to start as without the plugin", async () => {
		const query = 'subscription { ticks(channel: "other") { n } }';
		const outcomes = [];
		for (const plugins of [[], [useSharedEventResults(everyone)]]) {
			const subscriber = await subscribe(server(new Hub(), plugins), {}, query);
			outcomes.push(await subscriber.take(1));
		}
		expect(outcomes[1]).toEqual(outcomes[0]);
		expect(JSON.stringify(outcomes[1])).toContain("Unexpected error");
	});
});

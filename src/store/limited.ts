/**
 * A view of a store that runs at most `concurrency` calls at once; later
 * calls wait their turn in order. One GraphQL request gets its own view, so
 * a request with 30 aliases of an expensive field holds at most that many
 * database connections, and every other request still finds the pool open
 * (graphql-js resolves sibling fields concurrently).
 */
import type { SessionStore } from "./store.js";

export function limitConcurrency(store: SessionStore, concurrency: number): SessionStore {
	let running = 0;
	const waiting: Array<() => void> = [];
	const release = () => {
		const next = waiting.shift();
		if (next) next();
		else running -= 1;
	};
	// A slot passes straight from a finishing call to the next waiter, so `running` never overshoots.
	const acquire = (): Promise<void> | undefined => {
		if (running < concurrency) {
			running += 1;
			return undefined;
		}
		return new Promise((resolve) => waiting.push(resolve));
	};
	const run = async <T>(call: () => Promise<T>): Promise<T> => {
		await acquire();
		try {
			return await call();
		} finally {
			release();
		}
	};
	return new Proxy(store, {
		get(target, property, receiver) {
			const value = Reflect.get(target, property, receiver);
			if (typeof value !== "function" || property === "close") return value;
			return (...args: unknown[]) => run(() => value.apply(target, args));
		},
	});
}

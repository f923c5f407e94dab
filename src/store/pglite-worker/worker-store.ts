/**
 * PGlite on a worker thread. PGlite runs Postgres as WebAssembly on the
 * thread that calls it, synchronously for the whole of each statement: on the
 * server's own thread, one heavy read (the context of a long session) holds
 * every other request, even `{ __typename }`. WorkerStore is the store on the
 * main thread: each call is one message to the worker (worker.ts, which runs
 * the ordinary PgStore) and one message back with the structured-cloned
 * result.
 *
 * One file: the main thread's half of the worker protocol; the calls, the
 * table of pending ones and the worker's lifecycle (the lock, a crash, the
 * exit) share the invariants above. Its other half is ./worker.ts.
 *
 * Invariants:
 * - The main thread holds the directory's lock from before the worker opens
 *   the directory until after the worker closed PGlite and exited.
 * - Commit notices and statements reach `announce`/`onQuery` on this thread
 *   before the result of the call that caused them (one port keeps order).
 * - A SessionError arrives as a SessionError (code, message, field); other
 *   errors as Errors with their message and stack.
 * - The worker keeps the process alive only while a call is pending; once the
 *   worker is gone (crashed, exited or closed) every pending and later call
 *   fails with an error that says so.
 */
import { mkdirSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { SessionError } from "../../session/errors.js";
import { DEFAULT_INPUT_LIMITS, type InputLimits } from "../../session/limits.js";
import { lockDirectory } from "../postgres/dir-lock.js";
import type { OpenOptions } from "../postgres/open.js";
import { pgliteWasmModule } from "../postgres/pglite-wasm.js";
import type { ContextQuery, ImportOptions, RebuildRollupsOptions, SessionStore } from "../store.js";
import { checkWriteInput } from "../write.js";
import { decodeError, type Method, type Reply, type Request, type WorkerInit } from "./protocol.js";

/** The argument a write names when its input is too deep to send, as the in-thread validation names it. */
const DEEP_INPUT_FIELD: Partial<Record<Method, string>> = {
	appendEntry: "entry",
	moveLeaf: "summary",
	setLabel: "label",
	renameSession: "name",
	importSession: "jsonl",
	continueSession: "jsonl",
};

/**
 * The worker thread's entry. Compiled (`npm run build`, the image) this
 * module is JavaScript and so is the worker beside it; from the sources
 * (`npm start`, tests) it is bootstrap.mjs, which loads tsx and then worker.ts.
 */
const WORKER_ENTRY = import.meta.url.endsWith(".js")
	? new URL("./worker.js", import.meta.url)
	: new URL("./bootstrap.mjs", import.meta.url);

interface Pending {
	resolve(value: unknown): void;
	reject(error: Error): void;
	onProgress: ImportOptions["onProgress"];
}

/** Every store method, the optional ones included (a WorkerStore implements them all). */
type StoreMethods = Required<Pick<SessionStore, Method>>;

type Result<M extends Method> = ReturnType<StoreMethods[M]>;

/** A callback of the caller failed: that is not the store's failure, but it must be seen. */
function report(what: string, error: unknown): void {
	process.emitWarning(
		`${what} threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
		"SessionStoreWarning",
	);
}

/** Embedded Postgres persisted in `dataDir`, run on a worker thread. */
export async function openPgliteWorker(dataDir: string, options: OpenOptions = {}): Promise<SessionStore> {
	mkdirSync(dataDir, { recursive: true });
	const unlock = await lockDirectory(dataDir);
	let store: WorkerStore;
	try {
		const init: WorkerInit = {
			dataDir,
			queries: options.onQuery !== undefined,
			notices: options.announce?.kind === "callback",
			inputLimits: options.limits ?? DEFAULT_INPUT_LIMITS,
			wasmModule: await pgliteWasmModule(),
		};
		store = new WorkerStore(
			new Worker(WORKER_ENTRY, { workerData: init }),
			unlock,
			options,
			init.inputLimits,
		);
	} catch (error) {
		await unlock();
		throw error;
	}
	await store.opened;
	return store;
}

/** The methods with an adapter in the class (arguments that cannot cross the thread as they are). */
type Adapted = "context" | "rebuildRollups" | "importSession";

/**
 * Every other method, as it is: one call message with its arguments. A
 * record, so that a method added to the store interface fails to compile
 * until it is listed here or adapted.
 */
const FORWARDED: Record<Exclude<Method, Adapted>, true> = {
	createSession: true,
	getSession: true,
	getSessions: true,
	listSessions: true,
	findSessions: true,
	appendEntry: true,
	moveLeaf: true,
	setLabel: true,
	renameSession: true,
	setArchived: true,
	deleteSession: true,
	getEntry: true,
	getEntries: true,
	listEntries: true,
	countEntries: true,
	sessionWithEntries: true,
	children: true,
	labels: true,
	tips: true,
	activePath: true,
	sessionTree: true,
	compareNodes: true,
	search: true,
	metrics: true,
	sessionStats: true,
	activity: true,
	activityNow: true,
	continueSession: true,
	exportSession: true,
	forkSession: true,
};

// The forwarded methods are installed on the prototype below; this declares them to TypeScript.
export interface WorkerStore extends Pick<StoreMethods, Exclude<Method, Adapted>> {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface declares the methods installed after the class.
export class WorkerStore implements SessionStore {
	readonly backend = "pglite" as const;
	/** Resolves once the worker opened the store; rejects (after cleaning up) when it could not. */
	readonly opened: Promise<void>;

	private readonly pending = new Map<number, Pending>();
	private nextId = 1;
	/** Set once the worker is gone or going: every call fails with it. */
	private failure: Error | undefined;
	private closing: Promise<void> | undefined;
	/** Waits for the worker's `ready` (while opening) or `closed` (while closing). */
	private waiter: { resolve(): void; reject(error: Error): void } | undefined;

	constructor(
		private readonly worker: Worker,
		private readonly unlock: () => void | Promise<void>,
		private readonly options: OpenOptions,
		/** The input limits the worker's store holds writes to (sent to it at start). */
		private readonly limits: InputLimits,
	) {
		worker.on("message", (reply: Reply) => this.receive(reply));
		worker.on("error", (error) =>
			this.fail(new Error(`the PGlite worker failed: ${error.message}`, { cause: error })),
		);
		worker.on("messageerror", (error) =>
			this.fail(new Error(`the PGlite worker sent a message that could not be read: ${error.message}`)),
		);
		worker.on("exit", (code) => this.fail(new Error(`the PGlite worker exited (code ${code})`)));
		const opening = new Promise<void>((resolve, reject) => {
			this.waiter = { resolve, reject };
		});
		this.opened = opening.then(
			() => {
				this.waiter = undefined;
				if (this.pending.size === 0) worker.unref();
			},
			async (error: Error) => {
				await this.release(error);
				throw error;
			},
		);
	}

	private receive(reply: Reply): void {
		switch (reply.type) {
			case "ready":
				this.waiter?.resolve();
				return;
			case "notice": {
				const { announce } = this.options;
				if (announce?.kind === "callback") {
					try {
						announce.onCommit(reply.notice);
					} catch (error) {
						report("a commit listener", error);
					}
				}
				return;
			}
			case "query":
				try {
					this.options.onQuery?.(reply.query, reply.params);
				} catch (error) {
					report("onQuery", error);
				}
				return;
			case "progress":
				try {
					this.pending.get(reply.id)?.onProgress?.(reply.stored, reply.total);
				} catch (error) {
					report("onProgress", error);
				}
				return;
			case "result":
				this.settle(reply.id)?.resolve(reply.value);
				return;
			case "error":
				this.settle(reply.id)?.reject(decodeError(reply.error));
				return;
			case "closed":
				if (reply.error) this.waiter?.reject(decodeError(reply.error));
				else this.waiter?.resolve();
				return;
		}
	}

	private settle(id: number): Pending | undefined {
		const pending = this.pending.get(id);
		this.pending.delete(id);
		if (this.pending.size === 0 && !this.failure && !this.waiter) this.worker.unref();
		return pending;
	}

	/** The worker is gone or going: fail everything waiting on it, and every later call. */
	private fail(error: Error): void {
		if (this.failure) return;
		this.failure = error;
		for (const pending of this.pending.values()) pending.reject(error);
		this.pending.clear();
		this.waiter?.reject(error);
		// A worker that failed but still runs must not keep the process alive (it holds nothing of use).
		this.worker.unref();
		void this.worker.terminate();
	}

	/** End the worker, then give the directory back. */
	private async release(reason: Error): Promise<void> {
		this.fail(reason);
		try {
			await this.worker.terminate();
		} finally {
			await this.unlock();
		}
	}

	/** One call to the worker; public only for the forwarders installed on the prototype (FORWARDED). */
	call<M extends Method>(
		method: M,
		args: Parameters<StoreMethods[M]>,
		onProgress?: ImportOptions["onProgress"],
	): Result<M> {
		return new Promise((resolve, reject) => {
			if (this.failure) return reject(this.failure);
			const id = this.nextId++;
			const request: Request = { type: "call", id, method, args, progress: onProgress !== undefined };
			try {
				this.worker.postMessage(request);
			} catch (error) {
				// Structured clone recurses: only input far past the JSON depth limit overflows it, and
				// the worker would have refused that input anyway. Check it here as the worker would have,
				// so that the error is the same one (the first problem found, naming its field).
				try {
					checkWriteInput(method, args, this.limits);
				} catch (refusal) {
					return reject(refusal);
				}
				return reject(
					new SessionError(
						"INVALID_INPUT",
						`${method}: the input cannot be sent to the store: it nests deeper than ${this.limits.jsonDepth} levels (${(error as Error).message})`,
						{ field: DEEP_INPUT_FIELD[method] ?? "input" },
					),
				);
			}
			if (this.pending.size === 0) this.worker.ref();
			this.pending.set(id, { resolve, reject, onProgress });
		}) as Result<M>;
	}

	// The methods whose arguments need a change to cross the thread; every other one is FORWARDED.
	context(ws: string, sessionId: string, query: ContextQuery = {}) {
		// A RawJson would not survive the structured clone to this thread: parsed messages cross it.
		const { rawMessages: _, ...parsed } = query;
		return this.call("context", [ws, sessionId, parsed]);
	}
	rebuildRollups(options: RebuildRollupsOptions = {}) {
		// The callback cannot cross to the worker; an embedded database is small, its rebuild quick.
		const { onSession: _, ...rest } = options;
		return this.call("rebuildRollups", [rest]);
	}
	importSession(ws: string, jsonl: string, options: ImportOptions = {}) {
		const { onProgress, ...rest } = options;
		return this.call("importSession", [ws, jsonl, rest], onProgress);
	}

	/** PGlite closes on the worker; then the worker ends and the directory is released. */
	close(): Promise<void> {
		this.closing ??= this.shutDown();
		return this.closing;
	}

	private async shutDown(): Promise<void> {
		await this.opened;
		let error: Error | undefined;
		if (!this.failure) {
			const closed = new Promise<void>((resolve, reject) => {
				this.waiter = { resolve, reject };
			});
			this.worker.ref();
			this.worker.postMessage({ type: "close" } satisfies Request);
			await closed.catch((e: Error) => {
				error = e;
			});
		}
		await this.release(new Error("the PGlite store is closed"));
		if (error) throw error;
	}
}

for (const method of Object.keys(FORWARDED) as Array<Exclude<Method, Adapted>>) {
	Object.defineProperty(WorkerStore.prototype, method, {
		value(this: WorkerStore, ...args: unknown[]) {
			return this.call(method, args as never);
		},
		writable: true,
		configurable: true,
	});
}

/**
 * The PGlite worker thread: the in-thread store (openPglite → PgStore) on a
 * thread of its own, so that PGlite's WebAssembly, which runs every query
 * synchronously, never holds the server's event loop. The main thread took
 * the directory's lock before starting this thread and releases it after
 * this thread has closed PGlite and exited.
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { openPglite, type PgliteOptions } from "../postgres/open.js";
import type { SessionStore } from "../store.js";
import { encodeError, type Reply, type Request, type WorkerInit } from "./protocol.js";

if (!parentPort) throw new Error("the PGlite worker runs only as a worker thread");
const port: MessagePort = parentPort;
const init = workerData as WorkerInit;

const post = (reply: Reply) => port.postMessage(reply);

const options: PgliteOptions = { locked: true, wasmModule: init.wasmModule, limits: init.inputLimits };
if (init.queries) {
	options.onQuery = (query, params) => {
		try {
			post({ type: "query", query, params });
		} catch {
			// A parameter structured clone cannot copy; the statement log is for counting and reading.
			post({ type: "query", query, params: params.map(String) });
		}
	};
}
if (init.notices)
	options.announce = { kind: "callback", onCommit: (notice) => post({ type: "notice", notice }) };

type AnyMethod = (...args: unknown[]) => Promise<unknown>;

async function serve(store: SessionStore, request: Extract<Request, { type: "call" }>): Promise<void> {
	const { id, method, args, progress } = request;
	let reply: Reply;
	try {
		if (progress) {
			// The callback cannot cross the boundary: progress travels as messages of this call.
			args[2] = {
				...(args[2] as object),
				onProgress: (stored: number, total: number) => post({ type: "progress", id, stored, total }),
			};
		}
		reply = { type: "result", id, value: await (store[method] as AnyMethod).apply(store, args) };
	} catch (error) {
		reply = { type: "error", id, error: encodeError(error) };
	}
	try {
		post(reply);
	} catch (error) {
		// A result structured clone cannot copy: the call fails, the worker lives on.
		post({ type: "error", id, error: encodeError(error) });
	}
}

async function main(): Promise<void> {
	let store: SessionStore;
	try {
		store = await openPglite(init.dataDir, options);
	} catch (error) {
		post({ type: "closed", error: encodeError(error) });
		return;
	}
	port.on("message", (request: Request) => {
		if (request.type === "call") void serve(store, request);
		else
			store.close().then(
				() => post({ type: "closed" }),
				(error: unknown) => post({ type: "closed", error: encodeError(error) }),
			);
	});
	post({ type: "ready" });
}

void main();

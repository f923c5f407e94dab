/**
 * The messages between a WorkerStore (main thread) and its PGlite worker
 * thread. One message each way per store call; notices, statements and import
 * progress travel on the same port before the call's result, so the main
 * thread sees them in the order the worker produced them.
 */
import { type ErrorCode, SessionError } from "../../session/errors.js";
import type { InputLimits } from "../../session/limits.js";
import type { CommitNotice } from "../commits.js";
import type { SessionStore } from "../store.js";

/** The store's methods that travel as calls (close has its own message). */
export type Method = Exclude<keyof SessionStore, "backend" | "close">;

export interface WorkerInit {
	dataDir: string;
	/** Send every statement back (OpenOptions.onQuery is set on the main side). */
	queries: boolean;
	/** Send every commit notice back (OpenOptions.announce is a callback). */
	notices: boolean;
	/** The input limits the worker's store holds writes to (OpenOptions.limits on the main side). */
	inputLimits: InputLimits;
	/** PGlite's WebAssembly as the main thread compiled it: the worker shares its code (pglite-wasm.ts). */
	wasmModule: WebAssembly.Module;
}

export type Request =
	| {
			type: "call";
			id: number;
			method: Method;
			args: unknown[];
			progress: boolean;
	  }
	| { type: "close" };

export type Reply =
	| { type: "ready" }
	| { type: "notice"; notice: CommitNotice }
	| { type: "query"; query: string; params: unknown[] }
	| { type: "progress"; id: number; stored: number; total: number }
	| { type: "result"; id: number; value: unknown }
	| { type: "error"; id: number; error: EncodedError }
	/** After PGlite closed (with the error of a failed open or close, if any). */
	| { type: "closed"; error?: EncodedError };

/** An error as it crosses the thread boundary; structured clone would keep only name, message and stack. */
export interface EncodedError {
	name: string;
	message: string;
	stack?: string;
	/** SessionError's code, or a driver's or the system's (`23505`, `ENOSPC`). */
	code?: string;
	field?: string;
	session: boolean;
	cause?: EncodedError;
}

export function encodeError(error: unknown, depth = 0): EncodedError {
	if (!(error instanceof Error)) return { name: "Error", message: String(error), session: false };
	const encoded: EncodedError = {
		name: error.name,
		message: error.message,
		session: error instanceof SessionError,
	};
	if (error.stack !== undefined) encoded.stack = error.stack;
	const { code, field } = error as { code?: unknown; field?: unknown };
	if (typeof code === "string") encoded.code = code;
	if (typeof field === "string") encoded.field = field;
	if (error.cause !== undefined && depth < 3) encoded.cause = encodeError(error.cause, depth + 1);
	return encoded;
}

/** A SessionError again (same code, message and field); anything else an Error with its name and stack. */
export function decodeError(encoded: EncodedError): Error {
	const cause = encoded.cause === undefined ? {} : { cause: decodeError(encoded.cause) };
	let error: Error;
	if (encoded.session) {
		error = new SessionError(encoded.code as ErrorCode, encoded.message, {
			...(encoded.field === undefined ? {} : { field: encoded.field }),
			...cause,
		});
	} else {
		error = new Error(encoded.message, cause);
		error.name = encoded.name;
		if (encoded.code !== undefined) Object.assign(error, { code: encoded.code });
	}
	if (encoded.stack !== undefined) error.stack = encoded.stack;
	return error;
}

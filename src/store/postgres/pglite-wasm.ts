/**
 * PGlite's WebAssembly, compiled once per process. PGlite would compile its
 * 9 MB module at every open, and the PGlite of a worker thread (a new
 * isolate) would also optimise its hot functions again. A Module given to a
 * worker (through workerData) shares its compiled code with this thread,
 * optimised functions included: on this project's 2-core machines a
 * worker's open and first 300 statements took 2.3 s of CPU with a module of
 * its own, 0.8 s with the shared one.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The file PGlite itself loads: beside its entry point, in its dist/. */
export const PGLITE_WASM = join(
	dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite")),
	"pglite.wasm",
);

let compiled: Promise<WebAssembly.Module> | undefined;

export function pgliteWasmModule(): Promise<WebAssembly.Module> {
	compiled ??= readFile(PGLITE_WASM)
		.then((bytes) => WebAssembly.compile(bytes))
		.catch((error: unknown) => {
			// The next open tries again (and fails with its own error if the file is still missing).
			compiled = undefined;
			throw error;
		});
	return compiled;
}

/**
 * PGlite's WebAssembly is compiled once per process and shared by every
 * PGlite the process opens, on this thread or a worker's (pglite-wasm.ts).
 */
import { describe, expect, it } from "vitest";
import { pgliteWasmModule } from "../../src/store/postgres/pglite-wasm.js";

describe("pgliteWasmModule", () => {
	it("is one compiled module per process: PGlite's Postgres", async () => {
		const [first, second] = await Promise.all([pgliteWasmModule(), pgliteWasmModule()]);
		expect(first).toBeInstanceOf(WebAssembly.Module);
		expect(second).toBe(first);
		expect(await pgliteWasmModule()).toBe(first);
		const exports = new Set(WebAssembly.Module.exports(first).map((e) => e.name));
		expect(exports.has("PageInit")).toBe(true);
	});
});

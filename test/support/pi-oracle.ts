/**
 * pi itself, the oracle the tests compare with, without the rest of pi: the
 * package's only entry point (`@mariozechner/pi-coding-agent`) loads the whole
 * coding agent (model providers, tools, TUI), over a second of imports in
 * every test file that asks for `buildSessionContext`. vitest.config.ts
 * resolves that specifier here; the names are pi's own functions from the
 * package's modules that define them, and type-checking still reads the
 * package's entry point, so a name missing here fails the importing file.
 */

export { calculateContextTokens } from "../../node_modules/@mariozechner/pi-coding-agent/dist/core/compaction/compaction.js";
export * from "../../node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js";

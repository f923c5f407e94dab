/**
 * pi's harness as the seed has it, the second oracle: npm
 * `@earendil-works/pi-agent-core` 0.83.0 (installed as `pi-agent-core-0.83`;
 * its `harness/types.ts` entry union is the seed's). Its session modules by
 * path: the package's entry point also loads the agent loop and providers.
 * The harness records every move of the pointer as a `leaf` entry, replays
 * them on load, and projects context from the compaction-bounded path.
 */

import { readFileSync } from "node:fs";

export { JsonlSessionStorage } from "../../node_modules/pi-agent-core-0.83/dist/harness/session/jsonl-storage.js";
export { InMemorySessionStorage } from "../../node_modules/pi-agent-core-0.83/dist/harness/session/memory-storage.js";
export {
	buildSessionContext as buildHarnessContext,
	Session,
} from "../../node_modules/pi-agent-core-0.83/dist/harness/session/session.js";

/** The harness's file system for its JSONL storage, reading through node:fs (the tests only read with it). */
export const harnessReader = {
	readTextFile: async (path: string) => ({ ok: true as const, value: readFileSync(path, "utf8") }),
	readTextLines: async (path: string, options?: { maxLines?: number }) => ({
		ok: true as const,
		value: readFileSync(path, "utf8").split("\n").slice(0, options?.maxLines),
	}),
} as never;

/**
 * pi's coding agent, the oracle for files and context as users have them
 * today: `@earendil-works/pi-coding-agent`, pinned in package.json. The
 * package's entry point loads the whole agent (model providers, tools, TUI)
 * and needs Node 22 (`fs.globSync`, undici 8); the modules that define what
 * the tests compare with load on Node 20 by path, and are pi's own code. Type
 * checking reads each module's own declarations, so a name missing here
 * fails the importing file.
 */

export { calculateContextTokens } from "../../node_modules/@earendil-works/pi-coding-agent/dist/core/compaction/compaction.js";
export * from "../../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js";
export { getUsageCostBreakdown } from "../../node_modules/@earendil-works/pi-coding-agent/dist/core/usage-totals.js";

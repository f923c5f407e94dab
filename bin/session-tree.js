#!/usr/bin/env node
/**
 * `session-tree <command> [arguments]`: the project's command-line tools
 * from a checkout (`npm link`, or `npx session-tree` inside it): follow,
 * import, rollups. Each runs its TypeScript source through tsx, as the npm
 * scripts do.
 */
import { register } from "tsx/esm/api";

const COMMANDS = {
	follow: "../src/cli/follow.ts",
	import: "../src/cli/import.ts",
	rollups: "../src/cli/rollups.ts",
};

const [command, ...rest] = process.argv.slice(2);
if (!command || !Object.hasOwn(COMMANDS, command)) {
	process.stderr.write(
		`usage: session-tree <${Object.keys(COMMANDS).join("|")}> [arguments] (--help for each)\n`,
	);
	process.exit(command === "--help" || command === "-h" ? 0 : 2);
}
register();
const script = new URL(COMMANDS[command], import.meta.url);
process.argv = [process.argv[0], script.pathname, ...rest];
await import(script.href);

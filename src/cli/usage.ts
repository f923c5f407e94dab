/**
 * What the commands that take paths (import, follow) do alike before their
 * work: a usage error is printed with the usage and exits 2, `--help`
 * prints the usage and exits 0, and a path that does not exist is a usage
 * error (nothing is read or sent).
 */
import { stat } from "node:fs/promises";

export class UsageError extends Error {}

export interface PathArgs {
	paths: string[];
	help: boolean;
}

/** The parsed arguments, or the exit code when the command ends here. */
export async function readArgs<A extends PathArgs>(
	command: string,
	usage: string,
	argv: readonly string[],
	parse: (argv: readonly string[]) => A,
): Promise<A | number> {
	let args: A;
	try {
		args = parse(argv);
		const missing = await missingPaths(args.paths);
		if (missing.length > 0) {
			throw new UsageError(missing.map((path) => `no such file or directory: ${path}`).join("\n"));
		}
	} catch (error) {
		if (!(error instanceof UsageError)) throw error;
		process.stderr.write(`${command}: ${error.message}\n\n${usage}\n`);
		return 2;
	}
	if (args.help) {
		process.stdout.write(`${usage}\n`);
		return 0;
	}
	return args;
}

/** Paths that do not exist (other errors, such as permissions, are the command's to report). */
async function missingPaths(paths: readonly string[]): Promise<string[]> {
	const missing: string[] = [];
	for (const path of paths) {
		try {
			await stat(path);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "ENOENT") missing.push(path);
		}
	}
	return missing;
}

/**
 * `npm run token -- --workspace team-a --scope read,write [--ttl 1h] [--subject alice]`
 *
 * Prints a development token signed with AUTH_JWT_SECRET (see src/auth/token.ts).
 * Exit code 0 with the token on stdout, 2 on usage or configuration errors.
 */
import { tokenCommand } from "../src/auth/token.js";

process.exitCode = await tokenCommand(process.argv.slice(2), process.env, {
	stdout: (text) => process.stdout.write(text),
	stderr: (text) => process.stderr.write(text),
});

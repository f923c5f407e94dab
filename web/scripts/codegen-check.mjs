/**
 * Fails when the committed types in src/gql/ are not what GraphQL Code
 * Generator makes from ../schema.graphql and the app's operations today:
 * regenerates into a temporary directory and compares file by file.
 * Fix with `npm --prefix web run codegen` and commit src/gql/.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const web = join(dirname(fileURLToPath(import.meta.url)), "..");
const committed = join(web, "src", "gql");
const fresh = mkdtempSync(join(tmpdir(), "web-codegen-"));
try {
	execFileSync(join(web, "node_modules", ".bin", "graphql-codegen"), ["--config", "codegen.ts", "--silent"], {
		cwd: web,
		env: { ...process.env, CODEGEN_OUT_DIR: `${fresh}/` },
		stdio: ["ignore", "inherit", "inherit"],
	});
	const names = new Set([...readdirSync(committed), ...readdirSync(fresh)]);
	const stale = [...names].filter((name) => {
		const read = (dir) => {
			try {
				return readFileSync(join(dir, name), "utf8");
			} catch {
				return undefined;
			}
		};
		return read(committed) !== read(fresh);
	});
	if (stale.length > 0) {
		console.error(
			`web/src/gql is out of date with schema.graphql or the app's operations (${stale.join(", ")}): run npm --prefix web run codegen and commit web/src/gql`,
		);
		process.exit(1);
	}
	console.log("web/src/gql is current");
} finally {
	rmSync(fresh, { recursive: true, force: true });
}

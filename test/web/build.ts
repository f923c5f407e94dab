/**
 * The built web app (web/dist) the service serves at `/`, rebuilt when a
 * source is newer: for the browser tests and the screenshot script alike
 * (no test runner imports here, so a plain `tsx` script can use it).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const WEB_DIR = fileURLToPath(new URL("../../web", import.meta.url));
const DIST_INDEX = join(WEB_DIR, "dist", "index.html");

function newestMtime(path: string): number {
	const info = statSync(path);
	if (!info.isDirectory()) return info.mtimeMs;
	let newest = info.mtimeMs;
	for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
	return newest;
}

/** Builds web/dist when it is missing or older than the app's sources (a developer's edit). */
export function ensureWebBuild(): void {
	const sources = ["src", "index.html", "vite.config.ts", "package-lock.json"].map((p) => join(WEB_DIR, p));
	const built = existsSync(DIST_INDEX) ? statSync(DIST_INDEX).mtimeMs : 0;
	if (built >= Math.max(...sources.map(newestMtime))) return;
	if (!existsSync(join(WEB_DIR, "node_modules"))) {
		throw new Error("web/ is not installed: run `npm --prefix web ci` (the root npm install does it)");
	}
	execFileSync("npm", ["--prefix", WEB_DIR, "run", "build"], { stdio: "pipe", timeout: 120_000 });
}

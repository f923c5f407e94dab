/**
 * The web app on a real server for browser tests: the memory backend's
 * service (test/support/server.ts), which serves the built app (web/dist)
 * at `/` of its own origin (src/app.ts installs useWebApp), so the page
 * talks to the service directly, HTTP and graphql-ws alike.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startTestServer, type TestServer } from "../support/server.js";

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

export interface WebTestServer {
	/** The page's origin, e.g. http://127.0.0.1:43123 */
	origin: string;
	api: TestServer;
	close(): Promise<void>;
}

export async function startWebTestServer(): Promise<WebTestServer> {
	const api = await startTestServer("memory");
	const origin = new URL(api.url).origin;
	const response = await fetch(`${origin}/`);
	await response.arrayBuffer();
	if (!response.ok || !(response.headers.get("content-type") ?? "").startsWith("text/html")) {
		await api.close();
		throw new Error(`the service does not serve the web app at / (${response.status})`);
	}
	return { origin, api, close: () => api.close() };
}

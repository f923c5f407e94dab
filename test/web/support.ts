/**
 * The web app on a real server for browser tests: the memory backend's
 * service (test/support/server.ts) with the built app (web/dist) served at
 * `/` of the same origin.
 *
 * Until src/app.ts installs `useWebApp` itself, a front server on another
 * port answers the app's paths with the same handler (src/app/web-app.ts)
 * and hands everything else, HTTP and WebSocket upgrades alike, to the
 * service's own request and upgrade handlers, so every API call still runs
 * through the real app and graphql-ws server. Once the service serves the
 * app, the front is not started and the page talks to the service directly.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { webAppHandler } from "../../src/app/web-app.js";
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

async function servesWebApp(origin: string): Promise<boolean> {
	const response = await fetch(`${origin}/`);
	await response.arrayBuffer();
	return response.ok && (response.headers.get("content-type") ?? "").startsWith("text/html");
}

export async function startWebTestServer(): Promise<WebTestServer> {
	const api = await startTestServer("memory");
	const apiOrigin = new URL(api.url).origin;
	if (await servesWebApp(apiOrigin)) {
		return { origin: apiOrigin, api, close: () => api.close() };
	}
	const handle = webAppHandler();
	const { app, server: apiServer } = api.running;
	const front: Server = createServer(async (req, res) => {
		const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`);
		const headers = new Headers();
		for (const [name, value] of Object.entries(req.headers)) {
			if (typeof value === "string") headers.set(name, value);
		}
		const response = await handle(new Request(url, { method: req.method ?? "GET", headers }), url);
		if (!response) {
			app(req, res);
			return;
		}
		res.writeHead(response.status, Object.fromEntries(response.headers));
		res.end(Buffer.from(await response.arrayBuffer()));
	});
	front.on("upgrade", (req, socket, head) => apiServer.emit("upgrade", req, socket, head));
	await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
	const { port } = front.address() as AddressInfo;
	return {
		origin: `http://127.0.0.1:${port}`,
		api,
		async close() {
			front.closeAllConnections();
			await new Promise<void>((resolve) => front.close(() => resolve()));
			await api.close();
		},
	};
}

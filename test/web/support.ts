/**
 * The web app on a real server for browser tests: the service
 * (test/support/server.ts; the memory backend unless a test asks for
 * another), which serves the built app (web/dist) at `/` of its own origin
 * (src/app.ts installs useWebApp), so the page talks to the service
 * directly, HTTP and graphql-ws alike.
 */
import { type BackendName, type StartOptions, startTestServer, type TestServer } from "../support/server.js";

export { ensureWebBuild, WEB_DIR } from "./build.js";

export interface WebTestServer {
	/** The page's origin, e.g. http://127.0.0.1:43123 */
	origin: string;
	api: TestServer;
	close(): Promise<void>;
}

/** On the memory backend unless a test needs a database that outlives the server (a restart). */
export async function startWebTestServer(
	backend: BackendName = "memory",
	options: StartOptions = {},
): Promise<WebTestServer> {
	const api = await startTestServer(backend, options);
	const origin = new URL(api.url).origin;
	const response = await fetch(`${origin}/`);
	await response.arrayBuffer();
	if (!response.ok || !(response.headers.get("content-type") ?? "").startsWith("text/html")) {
		await api.close();
		throw new Error(`the service does not serve the web app at / (${response.status})`);
	}
	return { origin, api, close: () => api.close() };
}

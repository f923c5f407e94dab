/**
 * The browser app (web/, built into web/dist by `npm install`) served at
 * `/` by the service itself, so one origin serves the page and the API it
 * calls and nothing is loaded from elsewhere at run time.
 *
 * Answers GET and HEAD before any GraphQL handling, for every path except
 * the API's own (/graphql, /health…, /metrics), which it never shadows: a
 * built file is sent with its content type; a path without a file
 * extension is a client route (/sessions/abc) and gets index.html; a missing
 * file with an extension is 404. Hashed files under /assets/ never change
 * and are cached for a year; index.html is revalidated on every load (ETag),
 * so a new build is picked up at once. Paths never leave the dist directory.
 */
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "graphql-yoga";

export const DEFAULT_WEB_DIST = fileURLToPath(new URL("../../web/dist", import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
	".html": "text/html; charset=utf-8",
	".js": "text/javascript; charset=utf-8",
	".mjs": "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".json": "application/json; charset=utf-8",
	".map": "application/json; charset=utf-8",
	".svg": "image/svg+xml",
	".png": "image/png",
	".jpg": "image/jpeg",
	".ico": "image/x-icon",
	".webp": "image/webp",
	".woff2": "font/woff2",
	".txt": "text/plain; charset=utf-8",
};

/**
 * The page may load and connect to its own origin only (graphql-ws included:
 * 'self' covers ws: and wss: of the same host). Inline styles are allowed
 * because the chart library positions elements with style attributes.
 */
const CONTENT_SECURITY_POLICY = [
	"default-src 'self'",
	"connect-src 'self'",
	"img-src 'self' data:",
	"style-src 'self' 'unsafe-inline'",
	"script-src 'self'",
	"object-src 'none'",
	"base-uri 'self'",
	"frame-ancestors 'none'",
].join("; ");

export interface WebAppOptions {
	/** The built app (default: web/dist of this checkout). */
	distDir?: string;
	/** Paths the app never answers, with everything below them (default: the API's). */
	reservedPaths?: readonly string[];
}

const DEFAULT_RESERVED = ["/graphql", "/health", "/metrics"];

function isReserved(pathname: string, reserved: readonly string[]): boolean {
	return reserved.some((path) => pathname === path || pathname.startsWith(`${path}/`));
}

interface StaticFile {
	body: Buffer;
	etag: string;
}

/** Files are read once per change of size or mtime: a rebuild while running is served at once. */
function fileCache() {
	const cache = new Map<string, { size: number; mtimeMs: number; file: StaticFile }>();
	return async (path: string): Promise<StaticFile | undefined> => {
		let info: Awaited<ReturnType<typeof stat>>;
		try {
			info = await stat(path);
		} catch {
			return undefined;
		}
		if (!info.isFile()) return undefined;
		const cached = cache.get(path);
		if (cached && cached.size === info.size && cached.mtimeMs === info.mtimeMs) return cached.file;
		const body = await readFile(path);
		const etag = `"${createHash("sha1").update(body).digest("base64url")}"`;
		const file = { body, etag };
		cache.set(path, { size: info.size, mtimeMs: info.mtimeMs, file });
		return file;
	};
}

function respond(request: Request, path: string, file: StaticFile, immutable: boolean): Response {
	const type = CONTENT_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
	const headers: Record<string, string> = {
		"content-type": type,
		etag: file.etag,
		"cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
		"x-content-type-options": "nosniff",
	};
	if (type.startsWith("text/html")) {
		headers["content-security-policy"] = CONTENT_SECURITY_POLICY;
		headers["referrer-policy"] = "same-origin";
	}
	if (request.headers.get("if-none-match") === file.etag) return new Response(null, { status: 304, headers });
	headers["content-length"] = String(file.body.byteLength);
	return new Response(request.method === "HEAD" ? null : new Uint8Array(file.body), { status: 200, headers });
}

const notBuilt = (distDir: string) =>
	new Response(
		`The web app is not built (no ${join(distDir, "index.html")}). Run: npm --prefix web ci && npm --prefix web run build\n`,
		{ status: 503, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } },
	);

/** Answers a request for the app, or undefined when it is not the app's (API paths, other methods). */
export function webAppHandler(options: WebAppOptions = {}) {
	const distDir = resolve(options.distDir ?? DEFAULT_WEB_DIST);
	const reserved = options.reservedPaths ?? DEFAULT_RESERVED;
	const read = fileCache();
	return async (request: Request, url: URL = new URL(request.url)): Promise<Response | undefined> => {
		if (request.method !== "GET" && request.method !== "HEAD") return undefined;
		if (isReserved(url.pathname, reserved)) return undefined;
		let pathname: string;
		try {
			pathname = decodeURIComponent(url.pathname);
		} catch {
			return new Response("Bad path\n", { status: 400, headers: { "content-type": "text/plain" } });
		}
		const path = resolve(distDir, `.${pathname}`);
		// resolve() removes every "..": a path that still is not below distDir asked to leave it.
		if (path !== distDir && !path.startsWith(distDir + sep)) {
			return new Response("Not found\n", { status: 404, headers: { "content-type": "text/plain" } });
		}
		if (pathname !== "/" && !pathname.endsWith("/")) {
			const file = await read(path);
			if (file) return respond(request, path, file, pathname.startsWith("/assets/"));
			if (extname(pathname) !== "") {
				return new Response("Not found\n", { status: 404, headers: { "content-type": "text/plain" } });
			}
		}
		// The root and client routes: the app's page, which routes in the browser.
		const index = join(distDir, "index.html");
		const file = await read(index);
		return file ? respond(request, index, file, false) : notBuilt(distDir);
	};
}

/** The Yoga plugin: install it in app.ts's plugin list, after the health routes. */
export function useWebApp(options: WebAppOptions = {}): Plugin {
	const handle = webAppHandler(options);
	return {
		async onRequest({ request, url, endResponse }) {
			const response = await handle(request, url);
			if (response) endResponse(response);
		},
	};
}

/**
 * Serving the built app (src/app/web-app.ts) inside a Yoga app: content
 * types and caching, the client-route fallback, and that the API's own
 * paths are never shadowed. A small dist directory made here stands in for
 * web/dist, so these run without a build.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSchema, createYoga } from "graphql-yoga";
import { afterAll, describe, expect, it } from "vitest";
import { useWebApp } from "../../src/app/web-app.js";

const base = mkdtempSync(join(tmpdir(), "web-dist-"));
const dist = join(base, "dist");
mkdirSync(join(dist, "assets"), { recursive: true });
writeFileSync(join(base, "secret.txt"), "not for the web");
writeFileSync(join(dist, "index.html"), '<!doctype html><div id="root"></div>');
writeFileSync(join(dist, "assets", "index-abc123.js"), "console.log(1)");
writeFileSync(join(dist, "assets", "index-abc123.css"), "body{}");
writeFileSync(join(dist, "robots.txt"), "User-agent: *");
afterAll(() => rmSync(base, { recursive: true, force: true }));

const yoga = createYoga({
	schema: createSchema({ typeDefs: "type Query { ok: Boolean }", resolvers: { Query: { ok: () => true } } }),
	graphqlEndpoint: "/graphql",
	healthCheckEndpoint: "/health",
	landingPage: false,
	plugins: [useWebApp({ distDir: dist })],
});

const get = (path: string, init: RequestInit = {}) => yoga.fetch(`http://127.0.0.1${path}`, init);

describe("web app static serving", () => {
	it("serves index.html at / and for client routes, never cached without revalidation", async () => {
		for (const path of ["/", "/sessions/abc", "/dashboard", "/sessions/a%20b"]) {
			const response = await get(path);
			expect(response.status, path).toBe(200);
			expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
			expect(response.headers.get("cache-control")).toBe("no-cache");
			expect(response.headers.get("content-security-policy")).toContain("default-src 'self'");
			expect(await response.text()).toContain('<div id="root">');
		}
	});

	it("serves hashed assets with their content type, cached for a year", async () => {
		const js = await get("/assets/index-abc123.js");
		expect(js.status).toBe(200);
		expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
		expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
		expect(await js.text()).toBe("console.log(1)");
		const css = await get("/assets/index-abc123.css");
		expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
		const txt = await get("/robots.txt");
		expect(txt.headers.get("content-type")).toBe("text/plain; charset=utf-8");
		expect(txt.headers.get("cache-control")).toBe("no-cache");
	});

	it("answers a matching ETag with 304 and HEAD without a body", async () => {
		const first = await get("/");
		const etag = first.headers.get("etag");
		expect(etag).toBeTruthy();
		const again = await get("/", { headers: { "if-none-match": etag as string } });
		expect(again.status).toBe(304);
		const head = await get("/assets/index-abc123.js", { method: "HEAD" });
		expect(head.status).toBe(200);
		expect(head.headers.get("content-length")).toBe("14");
		expect(await head.text()).toBe("");
	});

	it("is 404 for a missing file and for paths that try to leave the dist directory", async () => {
		expect((await get("/assets/missing.js")).status).toBe(404);
		for (const path of ["/..%2fsecret.txt", "/assets/..%2f..%2fsecret.txt", "/%2e%2e%2fsecret.txt"]) {
			const response = await get(path);
			expect(response.status, path).toBe(404);
			expect(await response.text()).not.toContain("not for the web");
		}
		// The URL parser resolves a literal ../ before we see it: still inside dist.
		expect(await (await get("/../secret.txt")).text()).not.toContain("not for the web");
	});

	it("never shadows the API: /graphql, /health and other methods reach Yoga", async () => {
		const query = await get("/graphql", {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ query: "{ ok }" }),
		});
		expect(await query.json()).toEqual({ data: { ok: true } });
		const viaGet = await get("/graphql?query=%7Bok%7D", { headers: { accept: "application/json" } });
		expect(await viaGet.json()).toEqual({ data: { ok: true } });
		expect((await get("/health")).status).toBe(200);
		const post = await get("/", { method: "POST", body: "{}" });
		expect(post.headers.get("content-type") ?? "").not.toContain("text/html");
	});

	it("says how to build when web/dist is missing", async () => {
		const empty = createYoga({
			schema: createSchema({ typeDefs: "type Query { ok: Boolean }" }),
			plugins: [useWebApp({ distDir: join(dist, "nothing-here") })],
		});
		const response = await empty.fetch("http://127.0.0.1/sessions/x");
		expect(response.status).toBe(503);
		expect(await response.text()).toContain("npm --prefix web run build");
	});
});

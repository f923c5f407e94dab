/**
 * The routes an orchestrator and a scraper call, beside /graphql:
 * `/health/live` (the process serves HTTP), `/health/ready` (it can serve
 * requests: `Services.ready`, and not shutting down; 503 with the reason
 * otherwise) and `/metrics` (Prometheus text). Yoga's own `/health` stays,
 * the same answer as live. They answer GET and HEAD, before any GraphQL
 * handling, and are never cached.
 */
import type { Plugin } from "graphql-yoga";
import type { Readiness } from "../services.js";
import type { ServerMetrics } from "./prometheus.js";

export interface HealthOptions {
	ready: () => Promise<Readiness>;
	metrics?: ServerMetrics;
}

function json(status: number, body: unknown): Response {
	return new Response(JSON.stringify(body), {
		status,
		headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
	});
}

export function useHealthRoutes({ ready, metrics }: HealthOptions): Plugin {
	return {
		async onRequest({ request, url, endResponse }) {
			if (request.method !== "GET" && request.method !== "HEAD") return;
			switch (url.pathname) {
				case "/health/live":
					endResponse(json(200, { status: "live" }));
					return;
				case "/health/ready": {
					const readiness = await ready();
					endResponse(
						readiness.ready
							? json(200, { status: "ready" })
							: json(503, { status: "unavailable", reason: readiness.reason }),
					);
					return;
				}
				case "/metrics":
					if (!metrics) return;
					endResponse(
						new Response(await metrics.registry.metrics(), {
							headers: { "content-type": metrics.registry.contentType, "cache-control": "no-store" },
						}),
					);
					return;
			}
		},
	};
}

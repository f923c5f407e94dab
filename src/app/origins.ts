/**
 * Which browser origins may call the API, over HTTP (CORS) and WebSocket
 * (whose handshake browsers do not subject to CORS at all) alike. A request
 * without an `Origin` header is not from a browser page and is let through;
 * a browser always sends one on cross-origin requests and on every
 * WebSocket. Allowed: the server's own origin, the configured list
 * (`CORS_ORIGINS`, `*` for any), and in development any page on this
 * machine (localhost, 127.0.0.1, [::1], any port). Any other origin is
 * refused with FORBIDDEN before anything runs, not merely left unreadable.
 */
import type { Plugin } from "graphql-yoga";

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export interface OriginPolicy {
	/** `host` is the request's Host header: an origin naming it is the server itself. */
	allows(origin: string | null | undefined, host: string | null | undefined): boolean;
}

export function originPolicy(configured: readonly string[], development: boolean): OriginPolicy {
	const any = configured.includes("*");
	const listed = new Set(configured.map((o) => o.toLowerCase()));
	return {
		allows(origin, host) {
			if (origin === null || origin === undefined) return true;
			if (any || listed.has(origin.toLowerCase())) return true;
			let url: URL;
			try {
				url = new URL(origin);
			} catch {
				return false;
			}
			if (host && url.host === host.toLowerCase()) return true;
			return development && LOCAL_HOSTS.has(url.hostname) && /^https?:$/.test(url.protocol);
		},
	};
}

function forbidden(origin: string): Response {
	return Response.json(
		{
			errors: [
				{
					message: `Origin ${origin} may not call this API (set CORS_ORIGINS to allow it)`,
					extensions: { code: "FORBIDDEN" },
				},
			],
		},
		{ status: 403 },
	);
}

/** Refuses requests from origins the policy does not allow; Yoga's `cors` option answers the allowed ones. */
export function useOriginPolicy(policy: OriginPolicy): Plugin {
	return {
		onRequest: ({ request, endResponse }) => {
			const origin = request.headers.get("origin");
			if (!policy.allows(origin, request.headers.get("host"))) endResponse(forbidden(origin as string));
		},
	};
}

/** CORS headers for an allowed cross-origin page; credentials only ever for an allowed origin. */
export function corsOptions(policy: OriginPolicy) {
	return (request: Request) => {
		const origin = request.headers.get("origin");
		if (!origin || !policy.allows(origin, request.headers.get("host"))) return false as const;
		return {
			origin: [origin],
			credentials: true,
			methods: ["GET", "POST", "OPTIONS"],
			allowedHeaders: ["content-type", "authorization", "accept", "x-request-id", "last-event-id"],
			maxAge: 600,
		};
	};
}

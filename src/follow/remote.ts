/**
 * A follower's sink on a remote service: `continueSession` over its GraphQL
 * API with a bearer token (no database here). A request that does not get
 * an answer (refused, reset, timed out, a 5xx) means the service is
 * unavailable and the lines are sent again later; the service skips what it
 * holds, so a request that did commit before its answer was lost costs
 * nothing but the resend.
 */
import {
	type ContinueAnswer,
	type ContinueRequest,
	FollowError,
	kindOfCode,
	lineOf,
	type Sink,
} from "./sink.js";

const CONTINUE = `mutation Follow($input: ContinueSessionInput!) {
	continueSession(input: $input) { created appended held session { sessionId lastSeq } }
}`;

const ME = "query FollowCaller { me { workspaceId scopes } }";

export interface RemoteOptions {
	/** The service: its base URL (`http://host:4000`) or its GraphQL endpoint (`…/graphql`). */
	url: string;
	token?: string;
	timeoutMs?: number;
}

interface GraphQLAnswer<T> {
	data?: T | null;
	errors?: Array<{ message: string; extensions?: { code?: string; field?: string } }>;
}

/** The GraphQL endpoint of a service URL. */
export function endpointOf(url: string): string {
	const parsed = new URL(url);
	if (!parsed.pathname.endsWith("/graphql"))
		parsed.pathname = `${parsed.pathname.replace(/\/$/, "")}/graphql`;
	return parsed.toString();
}

export function remoteSink(options: RemoteOptions): Sink & {
	/** The workspace and scopes the token gives (checked once at the start). */
	viewer(): Promise<{ workspaceId: string; scopes: string[] }>;
} {
	const endpoint = endpointOf(options.url);
	const timeoutMs = options.timeoutMs ?? 30_000;

	async function request<T>(query: string, variables: Record<string, unknown>): Promise<T> {
		let response: Response;
		try {
			response = await fetch(endpoint, {
				method: "POST",
				headers: {
					"content-type": "application/json",
					accept: "application/graphql-response+json, application/json",
					...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
				},
				body: JSON.stringify({ query, variables }),
				signal: AbortSignal.timeout(timeoutMs),
			});
		} catch (error) {
			const cause = (error as { cause?: { code?: string } }).cause?.code;
			throw new FollowError("unavailable", `${endpoint}: ${cause ?? (error as Error).message}`);
		}
		let body: GraphQLAnswer<T>;
		try {
			body = (await response.json()) as GraphQLAnswer<T>;
		} catch {
			throw new FollowError(
				response.status >= 500 || response.status === 429 ? "unavailable" : "invalid",
				`${endpoint}: HTTP ${response.status}, not a GraphQL answer`,
			);
		}
		const [error] = body.errors ?? [];
		if (error) {
			const code = error.extensions?.code;
			const kind =
				response.status === 401 || response.status === 403
					? "denied"
					: kindOfCode(code, error.extensions?.field);
			// A 5xx without a code of ours (a proxy, a dying server): come back later.
			const transient =
				kind === "invalid" && code === undefined && (response.status >= 500 || response.status === 429);
			throw new FollowError(transient ? "unavailable" : kind, error.message, lineOf(error.message));
		}
		if (!body.data) throw new FollowError("unavailable", `${endpoint}: HTTP ${response.status} without data`);
		return body.data;
	}

	return {
		async continueSession(input: ContinueRequest): Promise<ContinueAnswer> {
			const data = await request<{
				continueSession: {
					created: boolean;
					appended: number;
					held: number;
					session: { sessionId: string; lastSeq: number };
				};
			}>(CONTINUE, { input });
			const { session, ...counts } = data.continueSession;
			return { ...counts, sessionId: session.sessionId, lastSeq: session.lastSeq };
		},
		async viewer() {
			return (await request<{ me: { workspaceId: string; scopes: string[] } }>(ME, {})).me;
		},
		async close() {},
	};
}

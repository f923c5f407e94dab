/**
 * How a POST body is read, for every HTTP request (queries, mutations and
 * SSE subscriptions alike):
 * - only `application/json` (and `application/graphql+json`): a browser sends
 *   those only after a CORS preflight, so a plain HTML form or a `text/plain`
 *   fetch from another site can never run a mutation (CSRF). This is the
 *   rule of Yoga's CSRF-prevention plugin without its extra header, which a
 *   browser's EventSource cannot send;
 * - at most `maxBytes`, counted as the body streams in (a body that claims a
 *   small length and sends more is cut off too);
 * - well-formed UTF-8: a body that is not is refused, never stored with
 *   U+FFFD in place of what the client sent.
 * GET requests keep Yoga's reading (queries only; a GET mutation is refused).
 */
import { isUtf8 } from "node:buffer";
import { createGraphQLError, type GraphQLParams, type Plugin } from "graphql-yoga";

const JSON_TYPES = ["application/json", "application/graphql+json"];

function rejected(status: number, code: string, message: string, limit?: string) {
	return createGraphQLError(message, {
		extensions: { code, ...(limit ? { limit } : {}), http: { status } },
	});
}

function isJson(request: Request): boolean {
	const type = request.headers.get("content-type")?.split(",")[0]?.split(";")[0]?.trim().toLowerCase();
	return type !== undefined && JSON_TYPES.includes(type);
}

async function readBody(request: Request, maxBytes: number): Promise<Buffer> {
	const tooLarge = () =>
		rejected(
			413,
			"LIMIT_EXCEEDED",
			`The request body is larger than ${maxBytes} bytes (body limit; the server's MAX_BODY_BYTES)`,
			"body",
		);
	const declared = Number(request.headers.get("content-length"));
	if (declared > maxBytes) throw tooLarge();
	const chunks: Uint8Array[] = [];
	let size = 0;
	const reader = request.body?.getReader();
	if (!reader) return Buffer.alloc(0);
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		size += value.byteLength;
		if (size > maxBytes) {
			await reader.cancel().catch(() => {});
			throw tooLarge();
		}
		chunks.push(value);
	}
	return Buffer.concat(chunks);
}

async function parseJsonBody(request: Request, maxBytes: number): Promise<GraphQLParams> {
	if (!isJson(request)) {
		throw rejected(
			415,
			"INVALID_INPUT",
			"POST bodies must be JSON (content-type: application/json); forms and text/plain are refused because a web page on another site could send them",
		);
	}
	const body = await readBody(request, maxBytes);
	if (!isUtf8(body)) throw rejected(400, "INVALID_INPUT", "The request body is not valid UTF-8");
	let params: unknown;
	try {
		params = JSON.parse(body.toString("utf8"));
	} catch (error) {
		throw rejected(400, "INVALID_INPUT", `The request body is not valid JSON: ${(error as Error).message}`);
	}
	if (typeof params !== "object" || params === null || Array.isArray(params)) {
		throw rejected(400, "INVALID_INPUT", "The request body must be a JSON object with a query");
	}
	return params as GraphQLParams;
}

export function useRequestBody(maxBytes: number): Plugin {
	return {
		onRequestParse: ({ request, setRequestParser }) => {
			if (request.method === "POST") setRequestParser((r) => parseJsonBody(r, maxBytes));
		},
	};
}

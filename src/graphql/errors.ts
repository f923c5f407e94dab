/**
 * Errors on the wire: a SessionError becomes a GraphQL error with a stable
 * `extensions.code` (and `field` for INVALID_INPUT); request errors (a bad
 * argument, a @oneOf input with two kinds) are INVALID_INPUT; anything else is
 * an internal error, masked and logged.
 */
import { GraphQLError, type Source } from "graphql";
import { createGraphQLError, maskError as yogaMaskError } from "graphql-yoga";
import type { Logger } from "../logger.js";
import { SessionError } from "../session/errors.js";

/**
 * By name, as Yoga does: `graphql` can be loaded twice (its CommonJS and ESM
 * builds, e.g. under a bundler or test runner), and then `instanceof` lies.
 */
export function isGraphQLError(error: unknown): error is GraphQLError {
	return error instanceof Error && error.name === "GraphQLError";
}

export function toGraphQLError(error: SessionError, located?: GraphQLError): GraphQLError {
	return createGraphQLError(error.message, {
		...(located
			? {
					nodes: located.nodes ?? null,
					source: located.source,
					positions: located.positions,
					path: located.path,
				}
			: {}),
		extensions: { code: error.code, ...(error.field === undefined ? {} : { field: error.field }) },
	});
}

export function createMaskError(logger: Logger) {
	return (error: unknown, message: string, isDev?: boolean): Error => {
		const original = isGraphQLError(error) ? error.originalError : error;
		if (original instanceof SessionError)
			return toGraphQLError(original, isGraphQLError(error) ? error : undefined);
		if (isGraphQLError(error) && (original === undefined || original === null || isGraphQLError(original)))
			return error;
		logger.error("unexpected error in a GraphQL operation", {
			path: isGraphQLError(error) ? error.path?.join(".") : undefined,
			error: original instanceof Error ? original : String(original),
		});
		return yogaMaskError(error, message, isDev);
	};
}

/** Resolver errors that are SessionErrors become coded errors before masking sees them. */
export function withStoreErrorCode(error: GraphQLError): GraphQLError {
	return error.originalError instanceof SessionError ? toGraphQLError(error.originalError, error) : error;
}

/** Request errors carry no code from graphql-js; give them ours. */
export function withRequestErrorCode(error: GraphQLError): GraphQLError {
	if (error.extensions?.code !== undefined) return error;
	return new GraphQLError(error.message, {
		nodes: error.nodes ?? null,
		source: error.source,
		positions: error.positions,
		path: error.path,
		originalError: error.originalError,
		extensions: { ...error.extensions, code: "INVALID_INPUT" },
	});
}

/** Offsets in `body` of each line's first character (graphql-js counts \r\n, \n and \r as line ends). */
function lineStarts(body: string): number[] {
	const starts = [0];
	for (const match of body.matchAll(/\r\n|[\n\r]/g)) starts.push(match.index + match[0].length);
	return starts;
}

/**
 * An error with `locations` but neither nodes nor positions (graphql-jit's,
 * see app/jit.ts) loses them wherever it is re-created (our error codes,
 * Yoga's encoding), which keep nodes and positions only: given positions in
 * the operation's source here, it keeps its locations as graphql-js reports them.
 */
export function withSourcePositions(error: GraphQLError, source: Source | undefined): GraphQLError {
	const { locations } = error;
	if (!source || error.nodes || error.positions || !locations?.length) return error;
	const starts = lineStarts(source.body);
	return new GraphQLError(error.message, {
		source,
		positions: locations.map(({ line, column }) => (starts[line - 1] ?? 0) + column - 1),
		path: error.path ?? null,
		originalError: error.originalError,
		...(error.extensions ? { extensions: error.extensions } : {}),
	});
}

/**
 * OpenTelemetry: with a tracer provider registered (here a recording one
 * built on @opentelemetry/api's interfaces alone, no SDK), each operation
 * is a span named after it and each store call a `store.<method>` span, all
 * ended; a failed operation's span has status ERROR. Without a provider
 * the same calls are no-ops (every other test runs that way).
 */
import { type Span, type SpanOptions, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { silentLogger } from "../../src/logger.js";
import { openServices, type Services } from "../../src/services.js";

interface Recorded {
	name: string;
	attributes: Record<string, unknown>;
	status?: number;
	ended: boolean;
}

const recorded: Recorded[] = [];

function recordingSpan(name: string, options?: SpanOptions): Span {
	const span: Recorded = { name, attributes: { ...options?.attributes }, ended: false };
	recorded.push(span);
	const self: Span = {
		spanContext: () => ({ traceId: "1".repeat(32), spanId: "1".repeat(16), traceFlags: 1 }),
		setAttribute: (key, value) => {
			span.attributes[key] = value;
			return self;
		},
		setAttributes: (attributes) => {
			Object.assign(span.attributes, attributes);
			return self;
		},
		addEvent: () => self,
		addLink: () => self,
		addLinks: () => self,
		setStatus: (status) => {
			span.status = status.code;
			return self;
		},
		updateName: (next) => {
			span.name = next;
			return self;
		},
		end: () => {
			span.ended = true;
		},
		isRecording: () => true,
		recordException: () => {},
	};
	return self;
}

const tracer: Tracer = {
	startSpan: recordingSpan,
	startActiveSpan: ((name: string, ...rest: unknown[]) =>
		(rest.at(-1) as (span: Span) => unknown)(recordingSpan(name))) as Tracer["startActiveSpan"],
};

describe("tracing through @opentelemetry/api", () => {
	let services: Services;
	let app: ReturnType<typeof createApp>;
	beforeAll(async () => {
		trace.setGlobalTracerProvider({ getTracer: () => tracer });
		services = await openServices({ backend: "memory" }, silentLogger);
		app = createApp({ services, logger: silentLogger, metrics: false });
	});
	afterAll(async () => {
		trace.disable();
		await services?.close();
	});

	async function run(query: string) {
		const response = await app.fetch("http://localhost/graphql", {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ query }),
		});
		return (await response.json()) as { errors?: unknown[] };
	}

	it("spans each operation by its name, and each store call under it, all ended", async () => {
		recorded.length = 0;
		expect((await run('query Lookup { session(sessionId: "none") { sessionId } }')).errors).toBeUndefined();
		const operation = recorded.find((s) => s.name === "graphql.query Lookup");
		expect(operation).toMatchObject({
			ended: true,
			attributes: { "graphql.operation.type": "query", "graphql.operation.name": "Lookup" },
		});
		expect(recorded.find((s) => s.name.startsWith("store.getSession"))).toMatchObject({ ended: true });
		expect(recorded.every((s) => s.ended)).toBe(true);
	});

	it("marks a failed operation's span as an error", async () => {
		recorded.length = 0;
		const failed = await run(
			'mutation Fails { appendEntry(input: { sessionId: "none", entryId: "e", entry: { message: { role: "user", content: "x", timestamp: 1 } } }) { entry { seq } } }',
		);
		expect(failed.errors).toBeDefined();
		expect(recorded.find((s) => s.name === "graphql.mutation Fails")).toMatchObject({
			ended: true,
			status: SpanStatusCode.ERROR,
		});
		expect(recorded.find((s) => s.name === "store.appendEntry")).toMatchObject({
			ended: true,
			status: SpanStatusCode.ERROR,
		});
	});
});

/**
 * The fan-out benchmark's subscribers: lean SSE clients on raw sockets, so
 * a thousand of them in one process cost the benchmark little (fetch and web
 * streams, or even `node:http`, cost several times more per event, which
 * would land on both sides' latencies alike and flatten the ratio). One
 * HTTP/1.1 connection per subscription (Yoga's "distinct connections" mode,
 * as test/events/clients.ts).
 *
 * Each `event: next` frame's result must be a `sessionEvents` event with a
 * `seq`; the receipt time is taken when the chunk holding the frame's end is
 * read from the socket, before any parsing (CLOCK_MONOTONIC ns, comparable
 * with the servers' commit instants). Exactly-once in order is checked as the
 * events arrive: each must carry the next seq after the previous one (the
 * first: afterSeq + 1); anything else is recorded as a violation.
 */
import { connect } from "node:net";

export const SUBSCRIPTION = `subscription($sessionId: String!, $afterSeq: Int) {
	sessionEvents(sessionId: $sessionId, afterSeq: $afterSeq) {
		... on EntryAppended { seq leafId entry { entryId parentId type timestamp ... on MessageEntry { role message } } }
	}
}`;

/** A wall-free instant: ns of CLOCK_MONOTONIC, as a double (exact to the ns for 104 days of uptime). */
export const monotonicNs = () => Number(process.hrtime.bigint());

export interface Subscriber {
	/** Resolves with the HTTP status once response headers arrived (the server has subscribed). */
	readonly opened: Promise<void>;
	/** Seq of the last event that continued the sequence. */
	readonly lastSeq: number;
	/** Receipt instant of each seq (index = seq), NaN when not received. */
	readonly receivedAt: Float64Array;
	/** Out-of-order, repeated or missing seqs, and anything else that was not the expected event. */
	readonly violations: string[];
	close(): void;
}

export interface SubscribeOptions {
	host: string;
	port: number;
	sessionId: string;
	afterSeq: number;
	/** Highest seq this subscriber will be asked to receive (sizes `receivedAt`). */
	maxSeq: number;
	/** Called when `lastSeq` advances. */
	onProgress?: (subscriber: Subscriber) => void;
}

/**
 * The subscription's HTTP/1.1 exchange on a raw socket: the request written
 * by hand, the response's head checked (200, text/event-stream), its chunked
 * body decoded by a small state machine. The `http` module's parser, streams
 * and string decoder cost several times as much per event.
 */
export function subscribe(options: SubscribeOptions): Subscriber {
	const body = JSON.stringify({
		query: SUBSCRIPTION,
		variables: { sessionId: options.sessionId, afterSeq: options.afterSeq },
	});
	const head =
		`POST /graphql HTTP/1.1\r\nhost: ${options.host}:${options.port}\r\ncontent-type: application/json\r\n` +
		`accept: text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`;
	const receivedAt = new Float64Array(options.maxSeq + 1).fill(Number.NaN);
	const violations: string[] = [];
	let expected = options.afterSeq + 1;
	let closed = false;
	const socket = connect({ host: options.host, port: options.port });
	socket.setNoDelay(true);
	const subscriber: Subscriber = {
		opened: undefined as unknown as Promise<void>,
		get lastSeq() {
			return expected - 1;
		},
		receivedAt,
		violations,
		close() {
			closed = true;
			socket.destroy();
		},
	};

	const frame = (text: string, at: number) => {
		if (text.startsWith(":")) return; // keep-alive
		let event = "message";
		let data = "";
		for (const line of text.split("\n")) {
			if (line.startsWith("event:")) event = line.slice(6).trim();
			else if (line.startsWith("data:")) data += line.slice(5).replace(/^ /, "");
		}
		if (event === "complete") {
			if (!closed) violations.push("the server completed the subscription");
			return;
		}
		if (event !== "next") return;
		const result = JSON.parse(data) as { data?: { sessionEvents?: { seq?: number } }; errors?: unknown };
		const seq = result.data?.sessionEvents?.seq;
		if (typeof seq !== "number") {
			violations.push(`unexpected result ${data.slice(0, 200)}`);
			return;
		}
		if (seq !== expected) {
			violations.push(`seq ${seq} where ${expected} was due`);
			return;
		}
		if (seq < receivedAt.length) receivedAt[seq] = at;
		expected += 1;
		options.onProgress?.(subscriber);
	};

	// Response head, then chunked body: `raw` holds undecoded bytes (as latin1 text), `events` decoded SSE text.
	let raw = "";
	let inHead = true;
	let chunkLeft = -1; // -1: a chunk-size line is due
	let events = "";
	let opened: () => void = () => {};
	let refused: (error: Error) => void = () => {};
	(subscriber as { opened: Promise<void> }).opened = new Promise<void>((resolve, reject) => {
		opened = resolve;
		refused = reject;
	});
	subscriber.opened.catch(() => {});

	const decode = (at: number) => {
		if (inHead) {
			const end = raw.indexOf("\r\n\r\n");
			if (end < 0) return;
			const lines = raw.slice(0, end).split("\r\n");
			raw = raw.slice(end + 4);
			const status = lines[0]?.split(" ")[1];
			const type = lines.find((l) => /^content-type:/i.test(l)) ?? "";
			const chunked = lines.some((l) => /^transfer-encoding:\s*chunked/i.test(l));
			if (status !== "200" || !type.includes("text/event-stream") || !chunked) {
				const error = new Error(`subscription refused: ${lines[0]} ${raw.slice(0, 300)}`);
				violations.push(error.message);
				refused(error);
				socket.destroy();
				return;
			}
			inHead = false;
			opened();
		}
		for (;;) {
			if (chunkLeft < 0) {
				const eol = raw.indexOf("\r\n");
				if (eol < 0) break;
				chunkLeft = Number.parseInt(raw.slice(0, eol), 16);
				raw = raw.slice(eol + 2);
				if (chunkLeft === 0) {
					if (!closed) violations.push("the server ended the response");
					return;
				}
			}
			if (raw.length < chunkLeft + 2) break;
			events += raw.slice(0, chunkLeft);
			raw = raw.slice(chunkLeft + 2);
			chunkLeft = -1;
		}
		for (let end = events.indexOf("\n\n"); end >= 0; end = events.indexOf("\n\n")) {
			// Events are ASCII JSON here; a non-ASCII byte would only garble text the check does not read.
			frame(events.slice(0, end), at);
			events = events.slice(end + 2);
		}
	};

	socket.on("data", (chunk: Buffer) => {
		const at = monotonicNs();
		raw += chunk.toString("latin1");
		decode(at);
	});
	socket.once("error", (error) => {
		if (!closed) violations.push(`connection failed: ${error.message}`);
		refused(error);
	});
	socket.once("close", () => {
		if (!closed) {
			violations.push("the connection closed");
			refused(new Error("the connection closed before the subscription started"));
		}
	});
	socket.write(head + body);
	return subscriber;
}

/**
 * Presence between instances over Postgres LISTEN/NOTIFY, on a channel of
 * its own (commit notices keep theirs: see ./pg-bus.ts). One listening
 * connection (postgres.js re-establishes it after a drop; from the second
 * LISTEN on, receivers are told messages may have been lost, and the hub
 * re-announces its viewers) and one sending connection.
 *
 * Sends are queued and flushed one statement at a time, each carrying what
 * was queued (at most SEND_BATCH messages, one viewer each): a transaction's
 * notices are delivered in the order it sent them and transactions one after
 * the other, so one instance's messages arrive in send order and a viewer's
 * "gone" is never overtaken by its last "here". A failed send is logged and
 * dropped: the next heartbeat repairs it, and the TTL covers a lost "gone".
 */
import type postgres from "postgres";
import type { Logger } from "../logger.js";
import { serviceClient } from "../store/postgres/client.js";
import {
	decodeMessage,
	encodeMessage,
	MAX_MESSAGE_BYTES,
	type PresenceMessage,
	type PresenceReceiver,
	type PresenceTransport,
} from "./presence-transport.js";

export const PRESENCE_CHANNEL = "session_tree_presence";

/** Messages per NOTIFY statement (a heartbeat of many viewers is a few statements, not thousands). */
const SEND_BATCH = 200;

export class PgPresenceTransport implements PresenceTransport {
	readonly kind = "postgres" as const;
	private readonly receivers = new Set<PresenceReceiver>();
	private readonly listenSql: postgres.Sql;
	private readonly sendSql: postgres.Sql;
	private listening = 0;
	private unlisten: (() => Promise<void>) | undefined;
	private readonly queue: string[] = [];
	private flushing: Promise<void> | undefined;
	private closed = false;

	private constructor(
		url: string,
		private readonly logger: Logger,
		private readonly channel: string,
	) {
		this.listenSql = serviceClient(url, "session-tree-presence-listen");
		this.sendSql = serviceClient(url, "session-tree-presence");
	}

	/** Resolves once LISTEN is in place: messages sent after that are heard. */
	static async open(url: string, logger: Logger, channel = PRESENCE_CHANNEL): Promise<PgPresenceTransport> {
		const transport = new PgPresenceTransport(url, logger, channel);
		try {
			const request = await transport.listenSql.listen(
				channel,
				(payload) => {
					const message = decodeMessage(payload);
					if (!message) {
						transport.logger.warn("ignored a malformed presence notice", { channel });
						return;
					}
					for (const receiver of [...transport.receivers]) receiver.message(message);
				},
				() => {
					transport.listening += 1;
					if (transport.listening > 1) {
						transport.logger.warn("presence listening connection re-established; re-announcing viewers", {
							channel,
						});
						for (const receiver of [...transport.receivers]) receiver.relistened();
					}
				},
			);
			transport.unlisten = () => request.unlisten();
		} catch (error) {
			await transport.end();
			throw error;
		}
		return transport;
	}

	/** Times the listening connection has (re)started LISTEN; 1 until a drop. */
	get listenCount(): number {
		return this.listening;
	}

	subscribe(receiver: PresenceReceiver): () => void {
		this.receivers.add(receiver);
		return () => this.receivers.delete(receiver);
	}

	get listenerCount(): number {
		return this.receivers.size;
	}

	send(message: PresenceMessage): void {
		if (this.closed) return;
		const payload = encodeMessage(message);
		// The hub refuses viewers whose announcement would not fit; this guards the other kinds.
		if (Buffer.byteLength(payload) > MAX_MESSAGE_BYTES) {
			this.logger.warn("dropped a presence message over NOTIFY's size limit", { kind: message.kind });
			return;
		}
		this.queue.push(payload);
		this.flush();
	}

	/** Sends start on the next turn, so what one turn queues goes in one statement. */
	private flush(): void {
		if (this.flushing) return;
		this.flushing = (async () => {
			await new Promise<void>((resolve) => setImmediate(resolve));
			while (this.queue.length > 0) {
				// One JSON text parameter rather than a text[]: postgres.js encodes arrays wrongly without the
				// server's array types, which a service client does not fetch (store/postgres/client.ts).
				const batch = this.queue.splice(0, SEND_BATCH);
				try {
					await this.sendSql`
						select pg_notify(${this.channel}, payload)
						from json_array_elements_text(${JSON.stringify(batch)}::text::json) as payload`;
				} catch (error) {
					this.logger.warn("presence notices not sent; the next heartbeat repeats them", {
						error: error as Error,
						messages: batch.length,
					});
				}
			}
		})().finally(() => {
			this.flushing = undefined;
			if (this.queue.length > 0) this.flush();
		});
	}

	private async end(): Promise<void> {
		await Promise.all([this.listenSql.end({ timeout: 2 }), this.sendSql.end({ timeout: 2 })]);
	}

	/** Sends what is queued (the hub's last "gone"s), then closes both connections. */
	async close(): Promise<void> {
		while (this.flushing) await this.flushing;
		this.closed = true;
		this.receivers.clear();
		await this.unlisten?.().catch(() => {});
		await this.end();
	}
}

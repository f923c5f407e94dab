/**
 * LISTEN/NOTIFY across instances. Each instance keeps one listening
 * connection and fans notices out to its local feeds. postgres.js
 * re-establishes a dropped listening connection by itself; every time it
 * (re)starts listening after the first, notices sent meanwhile may be lost, so
 * every feed re-reads from the store (`resync`). Nothing is lost: the store is
 * the source of truth and notices only wake readers up.
 *
 * Whether it listens is asked, not assumed (`probe`): a NOTIFY on this
 * instance's own probe channel, which the listening connection LISTENs to
 * after the commits channel, must come back through that connection. A
 * dropped listening connection (killed, a network cut postgres.js has not
 * noticed yet) fails the probe until postgres.js has listened again.
 */
import { randomUUID } from "node:crypto";
import type postgres from "postgres";
import type { Logger } from "../logger.js";
import { decodeNotice, NOTIFY_CHANNEL } from "../store/commits.js";
import { serviceClient } from "../store/postgres/client.js";
import { type BusListener, type EventBus, ListenerSet } from "./bus.js";

export class PgListenBus implements EventBus {
	readonly kind = "postgres" as const;
	private readonly listeners = new ListenerSet();
	private readonly sql: postgres.Sql;
	private listening = 0;
	private unlisten: (() => Promise<void>) | undefined;
	/** Unique per instance, so instances never hear each other's probes. */
	private readonly probeChannel = `session_tree_probe_${randomUUID().replaceAll("-", "")}`;
	private readonly probes = new Map<string, () => void>();
	private probeCount = 0;

	private constructor(
		url: string,
		private readonly logger: Logger,
	) {
		this.sql = serviceClient(url, "session-tree-listen");
	}

	/** Resolves once the first LISTEN is in place: commits after that are seen. */
	static async open(url: string, logger: Logger, channel = NOTIFY_CHANNEL): Promise<PgListenBus> {
		const bus = new PgListenBus(url, logger);
		const request = await bus.sql.listen(
			channel,
			(payload) => {
				const notice = decodeNotice(payload);
				if (notice) bus.listeners.notice(notice);
				else bus.logger.warn("ignored a malformed commit notice", { channel, payload });
			},
			() => {
				bus.listening += 1;
				if (bus.listening > 1) {
					bus.logger.warn("listening connection re-established; subscribers catch up from the store", {
						channel,
					});
					bus.listeners.resync();
				}
			},
		);
		// After the commits channel: postgres.js LISTENs again channel by channel in this order on the
		// one listening connection, so a probe heard means the commits channel is listened to as well.
		const probing = await bus.sql.listen(bus.probeChannel, (payload) => bus.probes.get(payload)?.());
		bus.unlisten = async () => {
			await request.unlisten();
			await probing.unlisten();
		};
		return bus;
	}

	/**
	 * A NOTIFY round trip: resolves once a NOTIFY sent now on this instance's
	 * probe channel is heard on the listening connection; rejects when it is
	 * not heard within `timeoutMs` (or cannot be sent).
	 */
	async probe(timeoutMs: number): Promise<void> {
		this.probeCount += 1;
		const token = String(this.probeCount);
		let timer: NodeJS.Timeout | undefined;
		try {
			await new Promise<void>((resolve, reject) => {
				this.probes.set(token, resolve);
				timer = setTimeout(
					() => reject(new Error(`a NOTIFY was not heard back within ${timeoutMs} ms`)),
					timeoutMs,
				);
				this.sql.notify(this.probeChannel, token).catch(reject);
			});
		} finally {
			clearTimeout(timer);
			this.probes.delete(token);
		}
	}

	/** Times the listening connection has (re)started LISTEN; 1 until a drop. */
	get listenCount(): number {
		return this.listening;
	}

	get reconnects(): number {
		return Math.max(0, this.listening - 1);
	}

	subscribe(listener: BusListener): () => void {
		return this.listeners.add(listener);
	}

	get listenerCount(): number {
		return this.listeners.size;
	}

	async close(): Promise<void> {
		await this.unlisten?.().catch(() => {});
		await this.sql.end({ timeout: 2 });
	}
}

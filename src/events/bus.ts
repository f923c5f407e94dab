/**
 * The EventBus delivers commit notices to this instance's live feeds. Two
 * implementations: in-process (one instance: memory, PGlite) and Postgres
 * LISTEN/NOTIFY (many instances on one database; see pg-bus.ts).
 */
import type { CommitNotice } from "../store/commits.js";

export interface BusListener {
	notice(notice: CommitNotice): void;
	/** Notices may have been lost (the listening connection dropped): re-read from the store. */
	resync(): void;
}

export interface EventBus {
	readonly kind: "in-process" | "postgres";
	subscribe(listener: BusListener): () => void;
	/** Listeners currently attached (for leak checks and metrics). */
	readonly listenerCount: number;
	/** Times a lost connection to the other instances was re-established (0 on the in-process bus). */
	readonly reconnects: number;
	/**
	 * Resolves once the bus is heard to deliver (readiness): the Postgres bus
	 * sends itself a NOTIFY and waits for it; the in-process bus always
	 * delivers. Rejects when not heard within `timeoutMs`.
	 */
	probe(timeoutMs: number): Promise<void>;
	close(): Promise<void>;
}

export class ListenerSet {
	private readonly listeners = new Set<BusListener>();

	add(listener: BusListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	get size(): number {
		return this.listeners.size;
	}

	notice(notice: CommitNotice): void {
		for (const l of [...this.listeners]) l.notice(notice);
	}

	resync(): void {
		for (const l of [...this.listeners]) l.resync();
	}
}

/** For a single instance: the store calls `publish` after each commit. */
export class InProcessBus implements EventBus {
	readonly kind = "in-process" as const;
	private readonly listeners = new ListenerSet();

	publish = (notice: CommitNotice): void => {
		this.listeners.notice(notice);
	};

	subscribe(listener: BusListener): () => void {
		return this.listeners.add(listener);
	}

	get listenerCount(): number {
		return this.listeners.size;
	}

	readonly reconnects = 0;

	async probe(): Promise<void> {}

	async close(): Promise<void> {}
}

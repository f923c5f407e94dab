/**
 * What presence hubs (./presence.ts) tell each other, and how: a viewer, the
 * messages that announce one (encoded to fit a NOTIFY payload), and the
 * transport interface with its in-process implementation (one instance
 * alone, or several in one process for tests). The Postgres transport is
 * ./pg-presence.ts.
 */

export interface Viewer {
	viewerId: string;
	/** The token's subject; null without authentication. */
	subject: string | null;
	focusEntryId: string | null;
	/** When the viewer joined (ISO-8601). */
	since: string;
}

/** One viewer's announcements between instances. `from` is the sending instance. */
export type PresenceMessage =
	| { kind: "here"; from: string; workspaceId: string; sessionId: string; viewer: Viewer }
	| { kind: "gone"; from: string; workspaceId: string; sessionId: string; viewerId: string }
	/** A focus change asked on another instance than the viewer's (e.g. a mutation over HTTP); `to` owns the viewer. */
	| {
			kind: "focus";
			from: string;
			to: string;
			workspaceId: string;
			sessionId: string;
			viewerId: string;
			subject: string | null;
			focusEntryId: string | null;
	  }
	/** Re-announce your viewers (the sender has just started or re-listened). */
	| { kind: "ask"; from: string };

/** NOTIFY refuses payloads of 8000 bytes or more; every message must stay below. */
export const MAX_MESSAGE_BYTES = 7_999;

export function encodeMessage(m: PresenceMessage): string {
	switch (m.kind) {
		case "here":
			return JSON.stringify({
				k: "h",
				i: m.from,
				w: m.workspaceId,
				s: m.sessionId,
				v: m.viewer.viewerId,
				u: m.viewer.subject,
				f: m.viewer.focusEntryId,
				t: m.viewer.since,
			});
		case "gone":
			return JSON.stringify({ k: "g", i: m.from, w: m.workspaceId, s: m.sessionId, v: m.viewerId });
		case "focus":
			return JSON.stringify({
				k: "f",
				i: m.from,
				o: m.to,
				w: m.workspaceId,
				s: m.sessionId,
				v: m.viewerId,
				u: m.subject,
				f: m.focusEntryId,
			});
		case "ask":
			return JSON.stringify({ k: "a", i: m.from });
	}
}

const isText = (v: unknown): v is string => typeof v === "string";
const isTextOrNull = (v: unknown): v is string | null => v === null || typeof v === "string";

export function decodeMessage(payload: string): PresenceMessage | null {
	let v: Record<string, unknown>;
	try {
		v = JSON.parse(payload);
	} catch {
		return null;
	}
	if (typeof v !== "object" || v === null || !isText(v.i)) return null;
	if (v.k === "a") return { kind: "ask", from: v.i };
	if (!isText(v.w) || !isText(v.s) || !isText(v.v)) return null;
	const at = { from: v.i, workspaceId: v.w, sessionId: v.s };
	if (v.k === "g") return { kind: "gone", ...at, viewerId: v.v };
	if (!isTextOrNull(v.u) || !isTextOrNull(v.f)) return null;
	if (v.k === "h" && isText(v.t)) {
		return { kind: "here", ...at, viewer: { viewerId: v.v, subject: v.u, focusEntryId: v.f, since: v.t } };
	}
	if (v.k === "f" && isText(v.o)) {
		return { kind: "focus", ...at, to: v.o, viewerId: v.v, subject: v.u, focusEntryId: v.f };
	}
	return null;
}

export interface PresenceReceiver {
	/** A message from some instance, possibly this one (the hub drops its own by `from`). */
	message(message: PresenceMessage): void;
	/** Messages may have been lost meanwhile (the listening connection dropped and came back). */
	relistened(): void;
}

/** How instances tell each other about their viewers. Delivery is best effort, in send order per sender. */
export interface PresenceTransport {
	readonly kind: "in-process" | "postgres";
	subscribe(receiver: PresenceReceiver): () => void;
	send(message: PresenceMessage): void;
	/** Receivers attached (for leak checks). */
	readonly listenerCount: number;
	/** Sends what is queued, then stops. */
	close(): Promise<void>;
}

/**
 * In-process instances that hear each other (tests of several instances
 * without a database). Messages are encoded and decoded like NOTIFY
 * payloads, and delivered in a later microtask, in order, to every member,
 * the sender included, as Postgres does.
 */
export class InProcessPresenceNetwork {
	readonly members = new Set<InProcessPresenceTransport>();

	transport(): InProcessPresenceTransport {
		return new InProcessPresenceTransport(this);
	}
}

/** One instance alone (memory, PGlite), or a member of a network of in-process instances. */
export class InProcessPresenceTransport implements PresenceTransport {
	readonly kind = "in-process" as const;
	private readonly receivers = new Set<PresenceReceiver>();

	constructor(private readonly network = new InProcessPresenceNetwork()) {
		network.members.add(this);
	}

	subscribe(receiver: PresenceReceiver): () => void {
		this.receivers.add(receiver);
		return () => this.receivers.delete(receiver);
	}

	get listenerCount(): number {
		return this.receivers.size;
	}

	send(message: PresenceMessage): void {
		if (!this.network.members.has(this)) return;
		const payload = encodeMessage(message);
		for (const member of this.network.members) queueMicrotask(() => member.deliver(payload));
	}

	private deliver(payload: string): void {
		const message = decodeMessage(payload);
		if (!message) return;
		for (const receiver of [...this.receivers]) receiver.message(message);
	}

	/** Leaves the network without a word, like an instance that vanished. */
	async close(): Promise<void> {
		this.network.members.delete(this);
	}
}

import { createHash, randomBytes, randomFillSync } from "node:crypto";

/**
 * Session ids are UUIDv7 (what pi uses): time-ordered, so new sessions sort
 * last in indexes and logs.
 */
export function newSessionId(now = Date.now()): string {
	const bytes = randomBytes(16);
	bytes.writeUIntBE(now, 0, 6);
	bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
	bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
	const hex = bytes.toString("hex");
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const ENTRY_ID_BYTES = 8;
/**
 * Entry ids' random bytes, drawn 512 ids at a time (as Node draws randomUUID's):
 * a draw per id was 2% of a sequential append's server CPU.
 */
const idBytes = Buffer.alloc(512 * ENTRY_ID_BYTES);
let idBytesUsed = idBytes.length;

/**
 * Entry ids: 16 hex characters (64 random bits). pi uses 8 and checks for
 * collisions in memory; a database-backed store cannot check cheaply, so the
 * id is long enough that a collision within one session is negligible (and
 * the primary key would still reject one).
 */
export function newEntryId(): string {
	if (idBytesUsed === idBytes.length) {
		randomFillSync(idBytes);
		idBytesUsed = 0;
	}
	idBytesUsed += ENTRY_ID_BYTES;
	return idBytes.toString("hex", idBytesUsed - ENTRY_ID_BYTES, idBytesUsed);
}

/**
 * Ids for version-1 files, which have none. pi assigns random ids; these are
 * derived from the session id and line position instead, so importing the
 * same file twice gives the same tree.
 */
export function migratedEntryId(sessionId: string, index: number, taken: ReadonlySet<string>): string {
	const digest = createHash("sha256").update(`${sessionId}\u0001${index}`).digest("hex");
	for (let length = 8; length <= digest.length; length += 4) {
		const candidate = digest.slice(0, length);
		if (!taken.has(candidate)) return candidate;
	}
	return `${digest}-${index}`;
}

/**
 * An export's leaf anchor's id (session/export.ts): `leaf-` and 16 hex
 * characters of SHA-256 over `seed`, the same every time, and of a form no
 * id pi or the service generates has (8 or 16 hex characters, UUIDs), so it
 * needs no look at the ids taken.
 */
export function anchorEntryId(seed: string): string {
	return `leaf-${createHash("sha256").update(seed).digest("hex").slice(0, 16)}`;
}

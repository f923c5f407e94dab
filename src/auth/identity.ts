/**
 * Who is calling: decided once per HTTP request and once per WebSocket
 * connection, from a verified bearer token (AUTH_MODE=jwt) or, without
 * authentication (AUTH_MODE=none), as an anonymous caller of the default
 * workspace with every scope. Everything the caller may read or change lies
 * in `workspaceId`; `subject` is recorded as the author of what it writes.
 */
/**
 * `read` and `write` for the tree; `admin` for what cannot be undone
 * (deleteSession), which `write` does not imply: a token must name it.
 */
export type Scope = "read" | "write" | "admin";

export const SCOPES: readonly Scope[] = ["read", "write", "admin"];

export interface Identity {
	workspaceId: string;
	/** The token's `sub`; null without authentication. */
	subject: string | null;
	scopes: ReadonlySet<Scope>;
	/** When the token expires (epoch ms); null when it never does (no authentication, or no `exp`). */
	expiresAt: number | null;
}

/** The caller when authentication is off: the default workspace, every scope, no author. */
export function anonymousIdentity(workspaceId: string): Identity {
	return { workspaceId, subject: null, scopes: new Set(SCOPES), expiresAt: null };
}

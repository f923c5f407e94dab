/**
 * AUTH_* environment → how callers are authenticated. Errors name the
 * variable and what it should hold, and never echo a secret.
 *
 * Modes: `jwt` verifies a bearer token on every request and connection;
 * `none` puts every caller in the default workspace with every scope. `none`
 * is what a development checkout gets with nothing configured; in production
 * it must be asked for (AUTH_MODE=none), so a forgotten variable never
 * silently opens every workspace to anyone who reaches the port.
 */

export type AuthMode = "jwt" | "none";

/** The only algorithms accepted, each tied to the one key source that may verify it (see verify.ts). */
export const SECRET_ALGORITHMS = ["HS256"] as const;
export const JWKS_ALGORITHMS = ["RS256", "ES256"] as const;

/** HS256 keys shorter than the hash output are below RFC 7518 §3.2's minimum and guessable offline. */
export const MIN_SECRET_BYTES = 32;

/**
 * 30 s: enough for an issuer and this server whose clocks drift apart (or a
 * token used the moment it is minted on another host), small next to any
 * sensible token lifetime, so an expired token is not accepted for long.
 */
export const DEFAULT_CLOCK_TOLERANCE_S = 30;
/** More than this turns `exp` into a suggestion; clocks on NTP are seconds apart, not minutes. */
export const MAX_CLOCK_TOLERANCE_S = 300;
export const DEFAULT_WORKSPACE_CLAIM = "workspace";
/** The store's DEFAULT_WORKSPACE; src/auth does not import the store, so callers may pass it in. */
const DEFAULT_WORKSPACE_ID = "default";

/**
 * jose's defaults for createRemoteJWKSet: the key set is refetched when it is
 * older than `cacheMaxAgeMs`, or when a token names a key id the cached set
 * lacks and the last fetch is older than `cooldownMs` (so tokens with made-up
 * key ids cause at most one fetch per cooldown). A key removed from the set
 * keeps verifying until one of those refetches.
 */
export const DEFAULT_JWKS_COOLDOWN_MS = 30_000;
export const DEFAULT_JWKS_CACHE_MAX_AGE_MS = 600_000;

export class AuthConfigError extends Error {
	override name = "AuthConfigError";
}

/**
 * The HS256 shared secret. Wrapped so that logging the configuration (or
 * JSON-encoding it) shows `[redacted]`, never the bytes.
 */
export class JwtSecret {
	readonly #bytes: Uint8Array;

	constructor(value: string) {
		this.#bytes = new TextEncoder().encode(value);
	}

	get bytes(): Uint8Array {
		return this.#bytes;
	}

	toJSON(): string {
		return "[redacted]";
	}

	toString(): string {
		return "[redacted]";
	}

	[Symbol.for("nodejs.util.inspect.custom")](): string {
		return "JwtSecret([redacted])";
	}
}

export interface AuthConfig {
	mode: AuthMode;
	/** Where every caller is when mode is `none`. */
	defaultWorkspace: string;
	/** Verifies HS256 tokens (and nothing else); null when AUTH_JWT_SECRET is unset. */
	secret: JwtSecret | null;
	/** Publishes the RS256/ES256 keys (and nothing else verifies those); null when AUTH_JWKS_URL is unset. */
	jwksUrl: URL | null;
	/** When set, a token's `iss` must equal it. */
	issuer: string | null;
	/** When set, a token's `aud` must be or contain it. */
	audience: string | null;
	clockToleranceS: number;
	/** The claim holding the caller's workspace id. */
	workspaceClaim: string;
	jwksCooldownMs: number;
	jwksCacheMaxAgeMs: number;
	/** For the startup log: authentication is off, or a setting is ignored or risky; null when all is well. */
	warning: string | null;
}

export interface AuthConfigOptions {
	/** NODE_ENV=production: refuse to run without authentication unless AUTH_MODE=none says so. */
	production: boolean;
	/** The workspace of unauthenticated callers (the store's DEFAULT_WORKSPACE); "default" when omitted. */
	defaultWorkspace?: string;
}

function text(env: NodeJS.ProcessEnv, name: string): string | null {
	const value = env[name]?.trim();
	return value ? value : null;
}

function mode(env: NodeJS.ProcessEnv): AuthMode | null {
	const raw = text(env, "AUTH_MODE")?.toLowerCase() ?? null;
	if (raw === null) return null;
	if (raw === "jwt" || raw === "none") return raw;
	throw new AuthConfigError(`AUTH_MODE must be jwt or none; got ${JSON.stringify(env.AUTH_MODE)}`);
}

/** Not trimmed: surrounding spaces are part of a secret someone chose; a blank one counts as unset. */
function secret(env: NodeJS.ProcessEnv): JwtSecret | null {
	const raw = env.AUTH_JWT_SECRET;
	if (raw === undefined || raw.trim() === "") return null;
	const value = new JwtSecret(raw);
	if (value.bytes.length < MIN_SECRET_BYTES) {
		throw new AuthConfigError(
			`AUTH_JWT_SECRET is too short: an HS256 secret needs at least ${MIN_SECRET_BYTES} bytes (e.g. \`openssl rand -base64 48\`)`,
		);
	}
	return value;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Over plain http anyone on the path could hand us their own keys, so
 * production requires https except to a key server on this host.
 */
function jwksUrl(env: NodeJS.ProcessEnv, production: boolean): URL | null {
	const raw = text(env, "AUTH_JWKS_URL");
	if (raw === null) return null;
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		throw new AuthConfigError(
			"AUTH_JWKS_URL must be an http(s) URL of a JSON Web Key Set, like https://issuer.example.com/.well-known/jwks.json",
		);
	}
	if (url.protocol !== "https:" && url.protocol !== "http:") {
		throw new AuthConfigError("AUTH_JWKS_URL must be an http(s) URL of a JSON Web Key Set");
	}
	if (production && url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname)) {
		throw new AuthConfigError(
			"AUTH_JWKS_URL must use https in production (plain http is allowed only to localhost)",
		);
	}
	return url;
}

function clockTolerance(env: NodeJS.ProcessEnv): number {
	const raw = text(env, "AUTH_CLOCK_TOLERANCE_S");
	if (raw === null) return DEFAULT_CLOCK_TOLERANCE_S;
	const value = Number(raw);
	if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value > MAX_CLOCK_TOLERANCE_S) {
		throw new AuthConfigError(
			`AUTH_CLOCK_TOLERANCE_S must be a whole number of seconds from 0 to ${MAX_CLOCK_TOLERANCE_S}; got ${JSON.stringify(env.AUTH_CLOCK_TOLERANCE_S)}`,
		);
	}
	return value;
}

export function anonymousWarning(workspace: string): string {
	return `authentication is off: every caller is in workspace ${workspace} with read, write and admin`;
}

export function authConfig(env: NodeJS.ProcessEnv, options: AuthConfigOptions): AuthConfig {
	const defaultWorkspace = options.defaultWorkspace ?? DEFAULT_WORKSPACE_ID;
	const requested = mode(env);
	const base = {
		defaultWorkspace,
		issuer: text(env, "AUTH_ISSUER"),
		audience: text(env, "AUTH_AUDIENCE"),
		clockToleranceS: clockTolerance(env),
		workspaceClaim: text(env, "AUTH_WORKSPACE_CLAIM") ?? DEFAULT_WORKSPACE_CLAIM,
		jwksCooldownMs: DEFAULT_JWKS_COOLDOWN_MS,
		jwksCacheMaxAgeMs: DEFAULT_JWKS_CACHE_MAX_AGE_MS,
	};

	if (requested === "none") {
		// Keys are not parsed: AUTH_MODE=none wins, and a bad key variable is not worth refusing to start over.
		const ignored = ["AUTH_JWT_SECRET", "AUTH_JWKS_URL"].filter((name) => text(env, name) !== null);
		const warning =
			ignored.length === 0
				? anonymousWarning(defaultWorkspace)
				: `${anonymousWarning(defaultWorkspace)} (AUTH_MODE=none; ${ignored.join(" and ")} ignored)`;
		return { ...base, mode: "none", secret: null, jwksUrl: null, warning };
	}

	const key = secret(env);
	const jwks = jwksUrl(env, options.production);
	if (key === null && jwks === null) {
		if (requested === "jwt") {
			throw new AuthConfigError(
				"AUTH_MODE=jwt needs a key: set AUTH_JWT_SECRET (HS256 shared secret, at least 32 bytes) or AUTH_JWKS_URL (RS256/ES256 keys), or both",
			);
		}
		if (options.production) {
			throw new AuthConfigError(
				"authentication is not configured: set AUTH_JWT_SECRET or AUTH_JWKS_URL, or set AUTH_MODE=none to run production without authentication",
			);
		}
		return {
			...base,
			mode: "none",
			secret: null,
			jwksUrl: null,
			warning: anonymousWarning(defaultWorkspace),
		};
	}

	// An identity provider's key set usually signs tokens for many applications;
	// without an audience check a token minted for any of them is accepted here.
	const warning =
		jwks !== null && base.audience === null
			? "AUTH_AUDIENCE is not set: any token signed by a key at AUTH_JWKS_URL is accepted, whichever application it was issued for"
			: null;
	return { ...base, mode: "jwt", secret: key, jwksUrl: jwks, warning };
}

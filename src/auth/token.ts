/**
 * Development tokens: HS256 JWTs signed with AUTH_JWT_SECRET and shaped the
 * way verify.ts reads them (workspace claim, `sub`, space-separated `scope`).
 * `npm run token` (scripts/token.ts) is the command line.
 */
import { parseArgs } from "node:util";
import { SignJWT } from "jose";
import { AuthConfigError, authConfig, type JwtSecret } from "./config.js";
import { SCOPES, type Scope } from "./identity.js";

export interface TokenRequest {
	workspace: string;
	scopes: readonly Scope[];
	subject: string;
	/** Lifetime in seconds. */
	ttlS: number;
}

export interface TokenSettings {
	secret: JwtSecret;
	issuer: string | null;
	audience: string | null;
	workspaceClaim: string;
}

export async function signToken(
	request: TokenRequest,
	settings: TokenSettings,
	now: Date = new Date(),
): Promise<string> {
	const jwt = new SignJWT({ [settings.workspaceClaim]: request.workspace, scope: request.scopes.join(" ") })
		.setProtectedHeader({ alg: "HS256", typ: "JWT" })
		.setSubject(request.subject)
		.setIssuedAt(now)
		.setExpirationTime(Math.floor(now.getTime() / 1000) + request.ttlS);
	if (settings.issuer !== null) jwt.setIssuer(settings.issuer);
	if (settings.audience !== null) jwt.setAudience(settings.audience);
	return jwt.sign(settings.secret.bytes);
}

/**
 * The signing settings from the same AUTH_* variables the server reads, so
 * a token made here verifies there. Only the secret is needed: AUTH_MODE and
 * AUTH_JWKS_URL do not matter to the signer.
 */
export function tokenSettings(env: NodeJS.ProcessEnv): TokenSettings {
	if (!env.AUTH_JWT_SECRET?.trim()) {
		throw new AuthConfigError(
			"AUTH_JWT_SECRET is not set: development tokens are HS256 tokens signed with the server's shared secret; set it to the value the server uses (at least 32 bytes)",
		);
	}
	const config = authConfig({ ...env, AUTH_MODE: "jwt", AUTH_JWKS_URL: "" }, { production: false });
	return {
		secret: config.secret as JwtSecret,
		issuer: config.issuer,
		audience: config.audience,
		workspaceClaim: config.workspaceClaim,
	};
}

export const TOKEN_USAGE = `usage: npm run token -- --workspace <id> --scope <read,write> [--ttl 1h] [--subject <sub>]

Prints an HS256 token signed with AUTH_JWT_SECRET for the workspace and
scopes given, with the issuer, audience and workspace claim the server
expects (AUTH_ISSUER, AUTH_AUDIENCE, AUTH_WORKSPACE_CLAIM).

  -w, --workspace <id>    the workspace the token grants
  -s, --scope <scopes>    read, write or read,write
  -t, --ttl <duration>    lifetime: seconds, or a number with s, m, h or d (default 1h)
  -u, --subject <sub>     the caller, recorded as the author of writes (default "dev")
  -h, --help              show this help`;

export class UsageError extends Error {
	override name = "UsageError";
}

const DURATION = /^(\d+)(s|m|h|d)?$/;
const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };
/** A development token that lives for more than a year is a forgotten credential. */
const MAX_TTL_S = 366 * 86_400;

function duration(raw: string): number {
	const match = DURATION.exec(raw.trim());
	const seconds = match ? Number(match[1]) * (UNIT_SECONDS[match[2] ?? "s"] as number) : Number.NaN;
	if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_TTL_S) {
		throw new UsageError(
			`--ttl must be a duration like 90s, 15m, 1h or 7d (at most 366d); got ${JSON.stringify(raw)}`,
		);
	}
	return seconds;
}

function scopes(raw: string): Scope[] {
	const names = raw
		.split(/[,\s]+/)
		.map((s) => s.trim())
		.filter(Boolean);
	const unknown = names.filter((name) => !(SCOPES as readonly string[]).includes(name));
	if (names.length === 0 || unknown.length > 0) {
		throw new UsageError(`--scope takes read, write and admin, e.g. read,write; got ${JSON.stringify(raw)}`);
	}
	// In SCOPES order, once each, whatever order they were given in.
	return SCOPES.filter((scope) => names.includes(scope));
}

/** `null` when help was asked for. */
export function parseTokenArgs(argv: readonly string[]): TokenRequest | null {
	let values: Record<string, string | boolean | undefined>;
	try {
		({ values } = parseArgs({
			args: [...argv],
			allowPositionals: false,
			strict: true,
			options: {
				workspace: { type: "string", short: "w" },
				scope: { type: "string", short: "s" },
				ttl: { type: "string", short: "t" },
				subject: { type: "string", short: "u" },
				help: { type: "boolean", short: "h" },
			},
		}));
	} catch (error) {
		throw new UsageError((error as Error).message);
	}
	if (values.help) return null;
	const workspace = typeof values.workspace === "string" ? values.workspace.trim() : "";
	if (!workspace) throw new UsageError("--workspace is required");
	if (typeof values.scope !== "string") throw new UsageError("--scope is required");
	const subject = typeof values.subject === "string" ? values.subject.trim() : "dev";
	if (!subject) throw new UsageError("--subject must not be empty");
	return {
		workspace,
		scopes: scopes(values.scope),
		subject,
		ttlS: typeof values.ttl === "string" ? duration(values.ttl) : 3600,
	};
}

/** The command: prints the token on stdout; returns the exit code (2 for usage and configuration errors). */
export async function tokenCommand(
	argv: readonly string[],
	env: NodeJS.ProcessEnv,
	io: { stdout: (text: string) => void; stderr: (text: string) => void },
): Promise<number> {
	let request: TokenRequest | null;
	try {
		request = parseTokenArgs(argv);
	} catch (error) {
		if (!(error instanceof UsageError)) throw error;
		io.stderr(`${error.message}\n\n${TOKEN_USAGE}\n`);
		return 2;
	}
	if (request === null) {
		io.stdout(`${TOKEN_USAGE}\n`);
		return 0;
	}
	let settings: TokenSettings;
	try {
		settings = tokenSettings(env);
	} catch (error) {
		if (!(error instanceof AuthConfigError)) throw error;
		io.stderr(`configuration error: ${error.message}\n`);
		return 2;
	}
	const now = new Date();
	io.stdout(`${await signToken(request, settings, now)}\n`);
	// On stderr, so `$(npm run -s token -- …)` captures the token alone.
	const expires = new Date(now.getTime() + request.ttlS * 1000).toISOString();
	io.stderr(
		`token for workspace ${request.workspace}, subject ${request.subject}, scopes ${request.scopes.join(" ")}, expires ${expires}\n`,
	);
	return 0;
}

/**
 * Bearer token → Identity. All cryptography and the standard claim checks
 * (signature, exp, nbf, iss, aud) are jose's; this module picks the key a
 * token may be verified with, reads this service's claims, and turns every
 * failure into UNAUTHENTICATED with a message that says what is wrong
 * without repeating the token.
 */
import {
	createRemoteJWKSet,
	decodeProtectedHeader,
	errors,
	type JWTPayload,
	type JWTVerifyGetKey,
	jwtVerify,
} from "jose";
import { SessionError } from "../session/errors.js";
import { isStorableText, MAX_ID_LENGTH } from "../session/validate.js";
import { type AuthConfig, AuthConfigError, JWKS_ALGORITHMS, SECRET_ALGORITHMS } from "./config.js";
import { anonymousIdentity, type Identity, SCOPES, type Scope } from "./identity.js";

export interface Authenticator {
	/**
	 * `authorization` is the raw `Authorization` header, or graphql-ws
	 * `connectionParams.authorization`: `Bearer <token>` (the scheme in any
	 * case). Anything that is not a string counts as malformed.
	 *
	 * Rejects with SessionError UNAUTHENTICATED when the token is missing or
	 * not acceptable, and UNAVAILABLE when the signing keys cannot be fetched
	 * from AUTH_JWKS_URL (the caller may retry; the fault is not the token's).
	 */
	authenticate(authorization: unknown): Promise<Identity>;
}

/**
 * Far above any real token (Node refuses request headers over 16 KiB) and
 * checked before any decoding, so an oversized value on a WebSocket costs nothing.
 */
export const MAX_TOKEN_LENGTH = 16 * 1024;

/** RFC 6750 §2.1: `Bearer` and a b64token; compact JWTs are base64url parts joined by dots. */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

function unauthenticated(message: string, cause?: unknown): SessionError {
	return new SessionError("UNAUTHENTICATED", message, cause === undefined ? {} : { cause });
}

/** Marks a failure to obtain the keys, as opposed to the token not matching them. */
class KeysUnavailable extends Error {
	override name = "KeysUnavailable";
}

export function createAuthenticator(config: AuthConfig): Authenticator {
	if (config.mode === "none") {
		const identity = anonymousIdentity(config.defaultWorkspace);
		// Without authentication a token is not looked at: everyone is the same caller.
		return { authenticate: async () => identity };
	}
	if (config.secret === null && config.jwksUrl === null) {
		throw new AuthConfigError("AUTH_MODE=jwt needs AUTH_JWT_SECRET or AUTH_JWKS_URL");
	}

	// Each algorithm is verified only with its own key source: an HS256 token
	// is checked against the secret and never against a public key from the
	// JWKS (whose bytes anyone can read and use as an HMAC key), and RS256/ES256
	// tokens only against the JWKS. `none` is in neither list.
	const secret = config.secret?.bytes ?? null;
	const jwks =
		config.jwksUrl === null
			? null
			: createRemoteJWKSet(config.jwksUrl, {
					cooldownDuration: config.jwksCooldownMs,
					cacheMaxAge: config.jwksCacheMaxAgeMs,
				});
	const algorithms: string[] = [
		...(secret === null ? [] : SECRET_ALGORITHMS),
		...(jwks === null ? [] : JWKS_ALGORITHMS),
	];
	const secretAlgorithms = new Set<string>(SECRET_ALGORITHMS);
	const jwksAlgorithms = new Set<string>(JWKS_ALGORITHMS);

	const key: JWTVerifyGetKey = async (header, token) => {
		const alg = header.alg ?? "";
		if (secret !== null && secretAlgorithms.has(alg)) return secret;
		if (jwks !== null && jwksAlgorithms.has(alg)) {
			try {
				return await jwks(header, token);
			} catch (error) {
				const code = (error as { code?: unknown }).code;
				if (code === "ERR_JWKS_NO_MATCHING_KEY" || code === "ERR_JWKS_MULTIPLE_MATCHING_KEYS") throw error;
				throw new KeysUnavailable("the JSON Web Key Set could not be fetched", { cause: error });
			}
		}
		// jose refuses any alg outside `algorithms` before asking for a key; this holds the line regardless.
		throw new errors.JOSEAlgNotAllowed("no key source for this algorithm");
	};

	const options = {
		algorithms,
		clockTolerance: config.clockToleranceS,
		...(config.issuer === null ? {} : { issuer: config.issuer }),
		...(config.audience === null ? {} : { audience: config.audience }),
	};

	return {
		async authenticate(authorization) {
			const token = bearerToken(authorization);
			// Read before verifying only to name the problem: jose refuses these too.
			const alg = algorithmOf(token);
			if (alg === undefined || alg.toLowerCase() === "none") {
				throw unauthenticated("the token is unsigned (alg none); a signed token is required");
			}
			if (!algorithms.includes(alg)) {
				throw unauthenticated(
					`the token's signing algorithm is not accepted (accepted: ${algorithms.join(", ")})`,
				);
			}
			let payload: JWTPayload;
			try {
				({ payload } = await jwtVerify(token, key, options));
			} catch (error) {
				throw verificationError(error);
			}
			return identityOf(payload, config.workspaceClaim);
		},
	};
}

function bearerToken(authorization: unknown): string {
	if (authorization === undefined || authorization === null || authorization === "") {
		throw unauthenticated("authentication is required: send a bearer token (Authorization: Bearer <token>)");
	}
	if (typeof authorization !== "string") {
		throw unauthenticated("the authorization value is not of the form `Bearer <token>`");
	}
	// Checked before the pattern, so a huge value is not scanned.
	if (authorization.length > MAX_TOKEN_LENGTH + 64) throw unauthenticated("the token is too long");
	const token = BEARER.exec(authorization.trim())?.[1];
	if (token === undefined)
		throw unauthenticated("the authorization value is not of the form `Bearer <token>`");
	if (token.length > MAX_TOKEN_LENGTH) throw unauthenticated("the token is too long");
	return token;
}

const CLAIM_PROBLEMS: Readonly<Record<string, string>> = {
	nbf: "the token is not valid yet (nbf is in the future)",
	iss: "the token's issuer (iss) is not the one this server accepts",
	aud: "the token's audience (aud) does not include this server",
};

function algorithmOf(token: string): string | undefined {
	try {
		return decodeProtectedHeader(token).alg;
	} catch (error) {
		throw unauthenticated("the token is not a well-formed signed JWT", error);
	}
}

function verificationError(error: unknown): unknown {
	if (error instanceof KeysUnavailable) {
		return new SessionError("UNAVAILABLE", "the token's signing keys could not be fetched; try again", {
			cause: error.cause,
		});
	}
	const { code, claim, reason } = error as { code?: unknown; claim?: unknown; reason?: unknown };
	switch (code) {
		case "ERR_JWT_EXPIRED":
			return unauthenticated("the token has expired", error);
		case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
			return unauthenticated("the token's signature does not verify", error);
		case "ERR_JWT_CLAIM_VALIDATION_FAILED": {
			const name = String(claim);
			if (reason === "missing") return unauthenticated(`the token has no ${name} claim`, error);
			if (reason === "invalid") return unauthenticated(`the token's ${name} claim is not a number`, error);
			return unauthenticated(CLAIM_PROBLEMS[name] ?? `the token's ${name} claim is not acceptable`, error);
		}
		case "ERR_JOSE_ALG_NOT_ALLOWED":
			return unauthenticated("the token's signing algorithm is not accepted", error);
		case "ERR_JWKS_NO_MATCHING_KEY":
			return unauthenticated("the token's signing key (kid) is not among the issuer's published keys", error);
		case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
			return unauthenticated("the token names no signing key (kid) and several published keys match", error);
		case "ERR_JOSE_NOT_SUPPORTED":
			return unauthenticated("the token uses an unsupported algorithm or key type", error);
		case "ERR_JWS_INVALID":
		case "ERR_JWT_INVALID":
			return unauthenticated("the token is not a well-formed signed JWT", error);
		default:
			// Not about the token (a bug or a broken runtime): left for the error masking to log.
			return error;
	}
}

/**
 * The service's claims, after jose has checked the standard ones.
 *
 * Scopes: `scope` is a space-separated string (RFC 9068 §2.2.3, as OAuth 2.0
 * access tokens carry it); only `read` and `write` mean anything here, other
 * values are ignored. A token with neither, or without `scope`, is still a
 * valid identity with no scopes: who the caller is and what it may do are
 * separate questions, and answering the second with FORBIDDEN (at the field
 * that needs the scope) tells the caller more than a blanket UNAUTHENTICATED.
 */
function identityOf(payload: JWTPayload, workspaceClaim: string): Identity {
	const workspace = Object.hasOwn(payload, workspaceClaim) ? payload[workspaceClaim] : undefined;
	if (workspace === undefined) throw unauthenticated(`the token has no ${workspaceClaim} claim`);
	if (typeof workspace !== "string" || workspace.trim() === "") {
		throw unauthenticated(`the token's ${workspaceClaim} claim is not a non-empty string`);
	}
	// Stored with every session and entry: text every backend can hold, of an id's length.
	if (workspace.length > MAX_ID_LENGTH || !isStorableText(workspace)) {
		throw unauthenticated(`the token's ${workspaceClaim} claim is not a usable workspace id`);
	}
	const subject = payload.sub;
	if (subject === undefined) throw unauthenticated("the token has no subject (sub) claim");
	if (typeof subject !== "string" || subject.trim() === "") {
		throw unauthenticated("the token's subject (sub) claim is not a non-empty string");
	}
	if (subject.length > MAX_ID_LENGTH || !isStorableText(subject)) {
		throw unauthenticated("the token's subject (sub) claim is not a usable author id");
	}
	const scope = payload.scope;
	if (scope !== undefined && typeof scope !== "string") {
		throw unauthenticated("the token's scope claim is not a space-separated string");
	}
	const granted = new Set((scope ?? "").split(" "));
	const scopes = new Set<Scope>(SCOPES.filter((s) => granted.has(s)));
	return {
		workspaceId: workspace,
		subject,
		scopes,
		expiresAt: typeof payload.exp === "number" ? payload.exp * 1000 : null,
	};
}

/**
 * Bearer token verification: every way a token can be wrong is refused with
 * UNAUTHENTICATED and a message naming the problem (never the token), and a
 * rotated JWKS key is picked up by the running authenticator, against a key
 * server on 127.0.0.1.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
	type CryptoKey,
	exportJWK,
	exportSPKI,
	generateKeyPair,
	importJWK,
	type JWK,
	type JWTPayload,
	SignJWT,
} from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type AuthConfig, authConfig } from "../../src/auth/config.js";
import { createAuthenticator } from "../../src/auth/verify.js";
import { rejectsWithCode } from "../support/expect.js";

const SECRET = "test-secret-of-at-least-32-bytes-0123456789";
const secretKey = new TextEncoder().encode(SECRET);
const now = () => Math.floor(Date.now() / 1000);

function config(env: NodeJS.ProcessEnv, overrides: Partial<AuthConfig> = {}): AuthConfig {
	return { ...authConfig({ AUTH_MODE: "jwt", ...env }, { production: false }), ...overrides };
}

/** `undefined` in `extra` drops that claim (jose leaves undefined members out of the payload). */
const claims = (extra: Record<string, unknown> = {}): JWTPayload => ({
	workspace: "team-a",
	sub: "alice",
	scope: "read write",
	exp: now() + 3600,
	...extra,
});

/** Drops claims whose value is `undefined`, so a test can leave one out. */
function payload(values: JWTPayload): JWTPayload {
	return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}

async function hs256(values: JWTPayload, key: Uint8Array = secretKey): Promise<string> {
	return new SignJWT(payload(values)).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(key);
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** Refused with UNAUTHENTICATED, a message matching `problem`, and no piece of the token in it. */
async function refused(
	authenticate: (header: unknown) => Promise<unknown>,
	header: unknown,
	problem: RegExp,
): Promise<void> {
	const error = await rejectsWithCode(authenticate(header), "UNAUTHENTICATED");
	expect(error.message).toMatch(problem);
	if (typeof header === "string") {
		for (const part of header.replace(/^bearer /i, "").split(".")) {
			if (part.length >= 8) expect(error.message).not.toContain(part);
		}
	}
}

describe("mode none", () => {
	it("makes every caller the anonymous caller of the default workspace, whatever it sends", async () => {
		const auth = createAuthenticator(authConfig({}, { production: false, defaultWorkspace: "default" }));
		for (const header of [undefined, null, "", "Bearer garbage", `Bearer ${await hs256(claims())}`, 42]) {
			const identity = await auth.authenticate(header);
			expect(identity).toMatchObject({ workspaceId: "default", subject: null, expiresAt: null });
			expect([...identity.scopes].sort()).toEqual(["admin", "read", "write"]);
		}
	});
});

describe("HS256 with AUTH_JWT_SECRET", () => {
	const auth = createAuthenticator(config({ AUTH_JWT_SECRET: SECRET }));
	const authenticate = (header: unknown) => auth.authenticate(header);

	it("accepts a good token and reads workspace, subject, scopes and expiry", async () => {
		const exp = now() + 600;
		const identity = await auth.authenticate(`Bearer ${await hs256(claims({ exp }))}`);
		expect(identity.workspaceId).toBe("team-a");
		expect(identity.subject).toBe("alice");
		expect([...identity.scopes].sort()).toEqual(["read", "write"]);
		expect(identity.expiresAt).toBe(exp * 1000);
	});

	it("takes the scheme in any case and surrounding spaces", async () => {
		const token = await hs256(claims());
		for (const header of [`bearer ${token}`, `BEARER ${token}`, `  Bearer   ${token}  `]) {
			expect((await auth.authenticate(header)).workspaceId).toBe("team-a");
		}
	});

	it("accepts a token without exp as one that never expires", async () => {
		const identity = await auth.authenticate(`Bearer ${await hs256(claims({ exp: undefined }))}`);
		expect(identity.expiresAt).toBeNull();
	});

	it("refuses a missing or malformed authorization value", async () => {
		const token = await hs256(claims());
		await refused(authenticate, undefined, /authentication is required/);
		await refused(authenticate, null, /authentication is required/);
		await refused(authenticate, "", /authentication is required/);
		await refused(authenticate, `Basic ${Buffer.from("alice:pw").toString("base64")}`, /not of the form/);
		await refused(authenticate, "Bearer", /not of the form/);
		await refused(authenticate, "Bearer ", /not of the form/);
		await refused(authenticate, token, /not of the form/);
		await refused(authenticate, `Bearer ${token} extra`, /not of the form/);
		await refused(authenticate, { authorization: `Bearer ${token}` }, /not of the form/);
		await refused(authenticate, "Bearer garbage", /not a well-formed signed JWT/);
		await refused(authenticate, "Bearer a.b.c", /not a well-formed signed JWT/);
		await refused(authenticate, `Bearer ${"a".repeat(20_000)}`, /too long/);
	});

	it("refuses an expired token", async () => {
		await refused(
			authenticate,
			`Bearer ${await hs256(claims({ exp: now() - 3600 }))}`,
			/the token has expired/,
		);
	});

	it("refuses a token that is not valid yet (nbf)", async () => {
		await refused(authenticate, `Bearer ${await hs256(claims({ nbf: now() + 3600 }))}`, /not valid yet/);
	});

	it("refuses a token signed with another secret, or altered after signing", async () => {
		const other = await hs256(claims(), new TextEncoder().encode(`${SECRET}-but-another-one`));
		await refused(authenticate, `Bearer ${other}`, /signature does not verify/);
		const [header, , signature] = (await hs256(claims())).split(".");
		const altered = `${header}.${b64url(claims({ workspace: "team-b" }))}.${signature}`;
		await refused(authenticate, `Bearer ${altered}`, /signature does not verify/);
	});

	it("refuses an unsigned token (alg none), however it spells none", async () => {
		for (const alg of ["none", "None", "NONE"]) {
			const unsigned = `${b64url({ alg, typ: "JWT" })}.${b64url(claims())}.`;
			await refused(authenticate, `Bearer ${unsigned}`, /unsigned/);
		}
		const noAlg = `${b64url({ typ: "JWT" })}.${b64url(claims())}.`;
		await refused(authenticate, `Bearer ${noAlg}`, /unsigned/);
	});

	it("refuses HS384/HS512 and asymmetric algorithms when only a secret is configured", async () => {
		const hs512 = await new SignJWT(claims()).setProtectedHeader({ alg: "HS512" }).sign(secretKey);
		await refused(authenticate, `Bearer ${hs512}`, /signing algorithm is not accepted \(accepted: HS256\)/);
		const { privateKey } = await generateKeyPair("RS256");
		const rs = await new SignJWT(claims()).setProtectedHeader({ alg: "RS256" }).sign(privateKey);
		await refused(authenticate, `Bearer ${rs}`, /signing algorithm is not accepted/);
	});

	it("refuses a token without a subject, or with an empty or non-string one", async () => {
		await refused(authenticate, `Bearer ${await hs256(claims({ sub: undefined }))}`, /no subject \(sub\)/);
		await refused(authenticate, `Bearer ${await hs256(claims({ sub: "" }))}`, /sub.*not a non-empty string/);
		await refused(authenticate, `Bearer ${await hs256(claims({ sub: 7 as never }))}`, /sub.*not a non-empty/);
	});

	it("refuses a token without the workspace claim, or with an empty or non-string one", async () => {
		await refused(
			authenticate,
			`Bearer ${await hs256(claims({ workspace: undefined }))}`,
			/no workspace claim/,
		);
		await refused(authenticate, `Bearer ${await hs256(claims({ workspace: "" }))}`, /workspace claim is not/);
		await refused(
			authenticate,
			`Bearer ${await hs256(claims({ workspace: " " }))}`,
			/workspace claim is not/,
		);
		await refused(authenticate, `Bearer ${await hs256(claims({ workspace: 1 }))}`, /workspace claim is not/);
		await refused(
			authenticate,
			`Bearer ${await hs256(claims({ workspace: ["a"] }))}`,
			/workspace claim is not/,
		);
	});

	it("refuses a workspace or subject no store can hold (U+0000, a lone surrogate, longer than an id)", async () => {
		for (const bad of ["team\u0000a", "team\udc00", "w".repeat(257)]) {
			await refused(
				authenticate,
				`Bearer ${await hs256(claims({ workspace: bad }))}`,
				/not a usable workspace id/,
			);
			await refused(authenticate, `Bearer ${await hs256(claims({ sub: bad }))}`, /not a usable author id/);
		}
	});

	it("reads the workspace from the configured claim only", async () => {
		const claim = "https://example.com/workspace";
		const custom = createAuthenticator(config({ AUTH_JWT_SECRET: SECRET, AUTH_WORKSPACE_CLAIM: claim }));
		const token = await hs256(claims({ workspace: undefined, [claim]: "team-c" }));
		expect((await custom.authenticate(`Bearer ${token}`)).workspaceId).toBe("team-c");
		await refused(
			(h) => custom.authenticate(h),
			`Bearer ${await hs256(claims())}`,
			/no https:\/\/example.com\/workspace claim/,
		);
		const inherited = createAuthenticator(
			config({ AUTH_JWT_SECRET: SECRET, AUTH_WORKSPACE_CLAIM: "constructor" }),
		);
		await refused(
			(h) => inherited.authenticate(h),
			`Bearer ${await hs256(claims())}`,
			/no constructor claim/,
		);
	});

	it("keeps only the read and write scopes of the space-separated scope claim", async () => {
		const scopesOf = async (scope: unknown) =>
			[...(await auth.authenticate(`Bearer ${await hs256(claims({ scope }))}`)).scopes].sort();
		expect(await scopesOf("read write")).toEqual(["read", "write"]);
		expect(await scopesOf("write read")).toEqual(["read", "write"]);
		expect(await scopesOf("write")).toEqual(["write"]);
		expect(await scopesOf("read other")).toEqual(["read"]);
		expect(await scopesOf("profile email")).toEqual([]);
		expect(await scopesOf("READ Write")).toEqual([]);
		expect(await scopesOf("read,write")).toEqual([]);
		expect(await scopesOf("")).toEqual([]);
		// Valid but powerless: what the caller may do is decided per field (FORBIDDEN), not here.
		expect(await scopesOf(undefined)).toEqual([]);
		await refused(
			authenticate,
			`Bearer ${await hs256(claims({ scope: ["read", "write"] }))}`,
			/scope claim is not a space-separated string/,
		);
	});

	it("refuses a non-numeric exp", async () => {
		await refused(
			authenticate,
			`Bearer ${await hs256(claims({ exp: "tomorrow" as never }))}`,
			/exp claim is not a number/,
		);
	});
});

describe("issuer and audience", () => {
	const auth = createAuthenticator(
		config({ AUTH_JWT_SECRET: SECRET, AUTH_ISSUER: "https://issuer.test", AUTH_AUDIENCE: "session-trees" }),
	);
	const authenticate = (header: unknown) => auth.authenticate(header);
	const good = { iss: "https://issuer.test", aud: "session-trees" };

	it("accepts the configured issuer and an audience that is or contains the configured one", async () => {
		await auth.authenticate(`Bearer ${await hs256(claims(good))}`);
		await auth.authenticate(`Bearer ${await hs256(claims({ ...good, aud: ["other", "session-trees"] }))}`);
	});

	it("refuses a wrong or missing issuer", async () => {
		await refused(
			authenticate,
			`Bearer ${await hs256(claims({ ...good, iss: "https://evil.test" }))}`,
			/issuer/,
		);
		await refused(authenticate, `Bearer ${await hs256(claims({ ...good, iss: undefined }))}`, /no iss claim/);
	});

	it("refuses a wrong or missing audience", async () => {
		await refused(authenticate, `Bearer ${await hs256(claims({ ...good, aud: "other-app" }))}`, /audience/);
		await refused(authenticate, `Bearer ${await hs256(claims({ ...good, aud: undefined }))}`, /no aud claim/);
	});
});

describe("clock tolerance", () => {
	const tolerant = createAuthenticator(config({ AUTH_JWT_SECRET: SECRET, AUTH_CLOCK_TOLERANCE_S: "30" }));
	const strict = createAuthenticator(config({ AUTH_JWT_SECRET: SECRET, AUTH_CLOCK_TOLERANCE_S: "0" }));

	it("accepts exp and nbf within the tolerance, and refuses them beyond it", async () => {
		const justExpired = `Bearer ${await hs256(claims({ exp: now() - 10 }))}`;
		const almostValid = `Bearer ${await hs256(claims({ nbf: now() + 10 }))}`;
		expect((await tolerant.authenticate(justExpired)).subject).toBe("alice");
		expect((await tolerant.authenticate(almostValid)).subject).toBe("alice");
		await refused((h) => strict.authenticate(h), justExpired, /expired/);
		await refused((h) => strict.authenticate(h), almostValid, /not valid yet/);
		await refused(
			(h) => tolerant.authenticate(h),
			`Bearer ${await hs256(claims({ exp: now() - 45 }))}`,
			/expired/,
		);
		await refused(
			(h) => tolerant.authenticate(h),
			`Bearer ${await hs256(claims({ nbf: now() + 45 }))}`,
			/not valid/,
		);
	});
});

interface SigningKey {
	kid: string;
	alg: "RS256" | "ES256";
	privateKey: CryptoKey;
	publicJwk: JWK;
}

async function signingKey(kid: string, alg: "RS256" | "ES256"): Promise<SigningKey> {
	const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
	return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

async function signed(key: SigningKey, values: JWTPayload = claims()): Promise<string> {
	return new SignJWT(payload(values)).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
}

/** A JWKS endpoint on 127.0.0.1 serving `keys` as they are at each request. */
class KeyServer {
	keys: JWK[] = [];
	status = 200;
	fetches = 0;
	readonly #server: Server = createServer((_request, response) => {
		this.fetches++;
		response.writeHead(this.status, { "content-type": "application/json" });
		response.end(JSON.stringify({ keys: this.keys }));
	});

	async start(): Promise<URL> {
		await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
		return new URL(`http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/.well-known/jwks.json`);
	}

	close(): Promise<void> {
		return new Promise((resolve) => this.#server.close(() => resolve()));
	}
}

describe("RS256/ES256 from AUTH_JWKS_URL", () => {
	const server = new KeyServer();
	let url: URL;
	let a: SigningKey;
	let b: SigningKey;
	let ec: SigningKey;
	beforeAll(async () => {
		url = await server.start();
		[a, b, ec] = await Promise.all([
			signingKey("key-a", "RS256"),
			signingKey("key-b", "RS256"),
			signingKey("key-ec", "ES256"),
		]);
	});
	afterAll(() => server.close());
	afterEach(() => {
		vi.useRealTimers();
		server.keys = [];
		server.status = 200;
		server.fetches = 0;
	});

	const jwksAuthenticator = (overrides: Partial<AuthConfig> = {}, env: NodeJS.ProcessEnv = {}) =>
		createAuthenticator(config({ AUTH_JWKS_URL: url.href, ...env }, overrides));

	it("verifies RS256 and ES256 tokens with the published keys, and refuses other signatures", async () => {
		server.keys = [a.publicJwk, ec.publicJwk];
		const auth = jwksAuthenticator();
		expect((await auth.authenticate(`Bearer ${await signed(a)}`)).workspaceId).toBe("team-a");
		expect((await auth.authenticate(`Bearer ${await signed(ec)}`)).workspaceId).toBe("team-a");
		// Signed by key B's private key but naming key A.
		const forged = await new SignJWT(claims())
			.setProtectedHeader({ alg: "RS256", kid: "key-a" })
			.sign(b.privateKey);
		await refused((h) => auth.authenticate(h), `Bearer ${forged}`, /signature does not verify/);
		await refused(
			(h) => auth.authenticate(h),
			`Bearer ${await hs256(claims())}`,
			/algorithm is not accepted/,
		);
	});

	it("refuses an HS256 token whose secret is the RSA public key (algorithm confusion)", async () => {
		server.keys = [a.publicJwk];
		// Both sources configured: HS256 is tried with the secret only, never with a published key.
		const both = jwksAuthenticator({}, { AUTH_JWT_SECRET: SECRET });
		const jwksOnly = jwksAuthenticator();
		const pem = await exportSPKI((await importJWK(a.publicJwk, "RS256")) as CryptoKey);
		const secrets = [
			new TextEncoder().encode(pem),
			new TextEncoder().encode(pem.trim()),
			new TextEncoder().encode(JSON.stringify(a.publicJwk)),
			Buffer.from(a.publicJwk.n as string, "base64url"),
		];
		for (const secret of secrets) {
			const confused = await new SignJWT(claims())
				.setProtectedHeader({ alg: "HS256", kid: "key-a" })
				.sign(secret);
			await refused((h) => both.authenticate(h), `Bearer ${confused}`, /signature does not verify/);
			await refused((h) => jwksOnly.authenticate(h), `Bearer ${confused}`, /algorithm is not accepted/);
		}
		// The same authenticator still takes both kinds of genuine token.
		await both.authenticate(`Bearer ${await hs256(claims())}`);
		await both.authenticate(`Bearer ${await signed(a)}`);
	});

	it("picks up a rotated key without a restart, and drops a removed one when the set is refetched", async () => {
		const auth = jwksAuthenticator({ jwksCooldownMs: 0 });
		server.keys = [a.publicJwk];
		const tokenA = `Bearer ${await signed(a)}`;
		await auth.authenticate(tokenA);
		expect(server.fetches).toBe(1);
		await auth.authenticate(tokenA);
		expect(server.fetches).toBe(1);

		// Rotation: B replaces A. A token naming B is a cache miss, which refetches the set.
		server.keys = [b.publicJwk];
		expect((await auth.authenticate(`Bearer ${await signed(b)}`)).subject).toBe("alice");
		expect(server.fetches).toBe(2);
		// The refetched set no longer holds A.
		await refused(
			(h) => auth.authenticate(h),
			tokenA,
			/signing key \(kid\) is not among the issuer's published keys/,
		);
	});

	it("refetches for an unknown kid at most once per cooldown", async () => {
		vi.useFakeTimers({ toFake: ["Date"] });
		const auth = jwksAuthenticator({ jwksCooldownMs: 60_000 });
		server.keys = [a.publicJwk];
		await auth.authenticate(`Bearer ${await signed(a)}`);
		server.keys = [a.publicJwk, b.publicJwk];
		const tokenB = `Bearer ${await signed(b)}`;
		// Within the cooldown after the last fetch: B is not looked for.
		await refused((h) => auth.authenticate(h), tokenB, /not among the issuer's published keys/);
		await refused((h) => auth.authenticate(h), tokenB, /not among the issuer's published keys/);
		expect(server.fetches).toBe(1);
		vi.setSystemTime(Date.now() + 61_000);
		await auth.authenticate(tokenB);
		expect(server.fetches).toBe(2);
	});

	it("keeps a removed key until the cached set is older than its maximum age", async () => {
		vi.useFakeTimers({ toFake: ["Date"] });
		const auth = jwksAuthenticator({ jwksCooldownMs: 60_000, jwksCacheMaxAgeMs: 120_000 });
		server.keys = [a.publicJwk, b.publicJwk];
		const tokenA = `Bearer ${await signed(a)}`;
		await auth.authenticate(tokenA);
		server.keys = [b.publicJwk];
		vi.setSystemTime(Date.now() + 100_000);
		await auth.authenticate(tokenA);
		expect(server.fetches).toBe(1);
		vi.setSystemTime(Date.now() + 30_000);
		await refused((h) => auth.authenticate(h), tokenA, /not among the issuer's published keys/);
		expect(server.fetches).toBe(2);
		await auth.authenticate(`Bearer ${await signed(b)}`);
	});

	it("reports a key server that fails as UNAVAILABLE, not as a bad token, and recovers", async () => {
		const auth = jwksAuthenticator({ jwksCooldownMs: 0 });
		server.keys = [a.publicJwk];
		server.status = 500;
		const token = `Bearer ${await signed(a)}`;
		const error = await rejectsWithCode(auth.authenticate(token), "UNAVAILABLE");
		expect(error.message).toMatch(/signing keys could not be fetched/);
		server.status = 200;
		expect((await auth.authenticate(token)).subject).toBe("alice");
	});
});

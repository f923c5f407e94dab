/**
 * AUTH_* → AuthConfig: which mode each combination of variables gives, and
 * that every refusal names what to set without echoing the secret.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
	type AuthConfig,
	AuthConfigError,
	authConfig,
	DEFAULT_CLOCK_TOLERANCE_S,
	DEFAULT_WORKSPACE_CLAIM,
} from "../../src/auth/config.js";

const SECRET = "a-development-secret-of-32-bytes-or-more";
const JWKS = "https://issuer.example.com/.well-known/jwks.json";
const dev = { production: false };
const prod = { production: true };

function refusal(env: NodeJS.ProcessEnv, options = dev): AuthConfigError {
	let caught: unknown;
	try {
		authConfig(env, options);
	} catch (error) {
		caught = error;
	}
	expect(caught).toBeInstanceOf(AuthConfigError);
	const error = caught as AuthConfigError;
	expect(error.name).toBe("AuthConfigError");
	if (env.AUTH_JWT_SECRET) expect(error.message).not.toContain(env.AUTH_JWT_SECRET);
	return error;
}

describe("authConfig", () => {
	it("is off in development with nothing configured, with the startup warning", () => {
		const config = authConfig({}, dev);
		expect(config.mode).toBe("none");
		expect(config.defaultWorkspace).toBe("default");
		expect(config.warning).toBe(
			"authentication is off: every caller is in workspace default with read, write and admin",
		);
	});

	it("names the default workspace it is given", () => {
		const config = authConfig({}, { production: false, defaultWorkspace: "main" });
		expect(config.defaultWorkspace).toBe("main");
		expect(config.warning).toMatch(/workspace main with read, write and admin/);
	});

	it("refuses production with nothing configured, saying what to set", () => {
		const error = refusal({}, prod);
		expect(error.message).toMatch(/AUTH_JWT_SECRET/);
		expect(error.message).toMatch(/AUTH_JWKS_URL/);
		expect(error.message).toMatch(/AUTH_MODE=none/);
		// Blank values count as unset.
		refusal({ AUTH_JWT_SECRET: "  ", AUTH_JWKS_URL: "" }, prod);
	});

	it("runs production without authentication only when AUTH_MODE=none says so, with the warning", () => {
		for (const mode of ["none", "NONE", " none "]) {
			const config = authConfig({ AUTH_MODE: mode }, prod);
			expect(config.mode).toBe("none");
			expect(config.warning).toMatch(/^authentication is off/);
		}
	});

	it("turns jwt on when a secret or JWKS URL is set and AUTH_MODE is not", () => {
		const secret = authConfig({ AUTH_JWT_SECRET: SECRET }, dev);
		expect(secret.mode).toBe("jwt");
		expect(secret.secret?.bytes).toEqual(new TextEncoder().encode(SECRET));
		expect(secret.jwksUrl).toBeNull();
		expect(secret.warning).toBeNull();
		const jwks = authConfig({ AUTH_JWKS_URL: JWKS, AUTH_AUDIENCE: "trees" }, prod);
		expect(jwks.mode).toBe("jwt");
		expect(jwks.secret).toBeNull();
		expect(jwks.jwksUrl?.href).toBe(JWKS);
		const both = authConfig({ AUTH_JWT_SECRET: SECRET, AUTH_JWKS_URL: JWKS, AUTH_AUDIENCE: "trees" }, prod);
		expect(both.secret).not.toBeNull();
		expect(both.jwksUrl).not.toBeNull();
	});

	it("refuses AUTH_MODE=jwt without a secret or JWKS URL", () => {
		const error = refusal({ AUTH_MODE: "jwt" }, dev);
		expect(error.message).toMatch(/AUTH_MODE=jwt needs a key: set AUTH_JWT_SECRET .* or AUTH_JWKS_URL/);
		refusal({ AUTH_MODE: "JWT" }, prod);
	});

	it("refuses an unknown AUTH_MODE", () => {
		expect(refusal({ AUTH_MODE: "oauth" }).message).toMatch(/AUTH_MODE must be jwt or none; got "oauth"/);
	});

	it("ignores keys under AUTH_MODE=none, and says so", () => {
		const config = authConfig(
			{ AUTH_MODE: "none", AUTH_JWT_SECRET: "short", AUTH_JWKS_URL: "not a url" },
			prod,
		);
		expect(config.mode).toBe("none");
		expect(config.secret).toBeNull();
		expect(config.warning).toMatch(/AUTH_JWT_SECRET and AUTH_JWKS_URL ignored/);
	});

	it("refuses a secret under 32 bytes without echoing it", () => {
		const short = "not-32-bytes-long-secret-xyz";
		const error = refusal({ AUTH_JWT_SECRET: short });
		expect(error.message).toMatch(/AUTH_JWT_SECRET is too short: .* at least 32 bytes/);
		expect(error.message).not.toContain(short);
		// Bytes, not characters: 16 two-byte characters are 32 bytes.
		expect(authConfig({ AUTH_JWT_SECRET: "é".repeat(16) }, dev).mode).toBe("jwt");
		refusal({ AUTH_JWT_SECRET: "é".repeat(15) });
	});

	it("never shows the secret when the configuration is logged or serialized", () => {
		const config = authConfig({ AUTH_JWT_SECRET: SECRET }, dev);
		expect(JSON.stringify(config)).not.toContain(SECRET);
		expect(inspect(config, { depth: 10 })).not.toContain(SECRET);
		expect(String(config.secret)).not.toContain(SECRET);
	});

	it("refuses a JWKS URL that is not http(s), and plain http in production except to localhost", () => {
		expect(refusal({ AUTH_JWKS_URL: "jwks.json" }).message).toMatch(/AUTH_JWKS_URL must be an http\(s\) URL/);
		expect(refusal({ AUTH_JWKS_URL: "file:///etc/jwks.json" }).message).toMatch(/AUTH_JWKS_URL/);
		expect(authConfig({ AUTH_JWKS_URL: "http://keys.internal/jwks" }, dev).mode).toBe("jwt");
		expect(refusal({ AUTH_JWKS_URL: "http://keys.internal/jwks" }, prod).message).toMatch(
			/https in production/,
		);
		for (const host of ["localhost:8080", "127.0.0.1", "[::1]:9000"]) {
			expect(authConfig({ AUTH_JWKS_URL: `http://${host}/jwks`, AUTH_AUDIENCE: "a" }, prod).mode).toBe("jwt");
		}
	});

	it("warns when JWKS tokens are accepted for any audience", () => {
		expect(authConfig({ AUTH_JWKS_URL: JWKS }, dev).warning).toMatch(/AUTH_AUDIENCE is not set/);
		expect(authConfig({ AUTH_JWKS_URL: JWKS, AUTH_AUDIENCE: "trees" }, dev).warning).toBeNull();
	});

	it("reads issuer, audience, clock tolerance and workspace claim, with defaults", () => {
		const defaults = authConfig({ AUTH_JWT_SECRET: SECRET }, dev);
		expect(defaults).toMatchObject<Partial<AuthConfig>>({
			issuer: null,
			audience: null,
			clockToleranceS: DEFAULT_CLOCK_TOLERANCE_S,
			workspaceClaim: DEFAULT_WORKSPACE_CLAIM,
		});
		expect(DEFAULT_CLOCK_TOLERANCE_S).toBe(30);
		expect(DEFAULT_WORKSPACE_CLAIM).toBe("workspace");
		const set = authConfig(
			{
				AUTH_JWT_SECRET: SECRET,
				AUTH_ISSUER: " https://issuer.example.com/ ",
				AUTH_AUDIENCE: "session-trees",
				AUTH_CLOCK_TOLERANCE_S: "0",
				AUTH_WORKSPACE_CLAIM: "https://example.com/tenant",
			},
			dev,
		);
		expect(set).toMatchObject<Partial<AuthConfig>>({
			issuer: "https://issuer.example.com/",
			audience: "session-trees",
			clockToleranceS: 0,
			workspaceClaim: "https://example.com/tenant",
		});
	});

	it("refuses a clock tolerance that is not a whole number of seconds up to 300", () => {
		for (const value of ["-1", "1.5", "30s", "301", "1e3"]) {
			expect(refusal({ AUTH_JWT_SECRET: SECRET, AUTH_CLOCK_TOLERANCE_S: value }).message).toMatch(
				/AUTH_CLOCK_TOLERANCE_S must be a whole number of seconds from 0 to 300/,
			);
		}
		expect(authConfig({ AUTH_JWT_SECRET: SECRET, AUTH_CLOCK_TOLERANCE_S: "300" }, dev).clockToleranceS).toBe(
			300,
		);
	});
});

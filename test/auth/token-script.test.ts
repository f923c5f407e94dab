/**
 * `npm run token`: run as a real process, its token verifies with the
 * authenticator the server builds from the same environment.
 */
import { execFile } from "node:child_process";
import { describe, expect, it } from "vitest";
import { authConfig } from "../../src/auth/config.js";
import { parseTokenArgs, UsageError } from "../../src/auth/token.js";
import { createAuthenticator } from "../../src/auth/verify.js";

const SECRET = "token-script-secret-0123456789abcdef";

interface Run {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** The script as `npm run token` runs it, with only the given AUTH_* variables. */
function token(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
	const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("AUTH_")));
	return new Promise((resolve) => {
		execFile(
			process.execPath,
			["--import", "tsx", "scripts/token.ts", ...args],
			{ env: { ...clean, ...env }, timeout: 20_000 },
			(error, stdout, stderr) => {
				resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
			},
		);
	});
}

describe("npm run token", () => {
	it("prints a token the server's authenticator accepts, and refuses bad usage and a missing secret", async () => {
		const env = {
			AUTH_JWT_SECRET: SECRET,
			AUTH_ISSUER: "https://dev.example.com",
			AUTH_AUDIENCE: "session-trees",
			AUTH_WORKSPACE_CLAIM: "tenant",
		};
		const started = Date.now();
		// In parallel: each run starts Node and tsx.
		const [good, readOnly, usage, noSecret] = await Promise.all([
			token(["--workspace", "team-a", "--scope", "read,write", "--ttl", "2h", "--subject", "alice"], env),
			token(["-w", "team-b", "-s", "read"], env),
			token(["--workspace", "team-a", "--scope", "superuser"], env),
			token(["--workspace", "team-a", "--scope", "read"], {}),
		]);

		expect(good.stderr).toMatch(/token for workspace team-a, subject alice, scopes read write/);
		expect(good.code).toBe(0);
		const lines = good.stdout.split("\n");
		expect(lines).toHaveLength(2);
		const auth = createAuthenticator(authConfig(env, { production: true }));
		const identity = await auth.authenticate(`Bearer ${lines[0]}`);
		expect(identity.workspaceId).toBe("team-a");
		expect(identity.subject).toBe("alice");
		expect([...identity.scopes].sort()).toEqual(["read", "write"]);
		expect(identity.expiresAt).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000 + 2 * 3600 * 1000);
		expect(identity.expiresAt).toBeLessThanOrEqual(Date.now() + 2 * 3600 * 1000);
		// The scope claim is written space-separated, as OAuth 2.0 access tokens carry it.
		const claims = JSON.parse(Buffer.from(lines[0]?.split(".")[1] ?? "", "base64url").toString());
		expect(claims).toMatchObject({
			tenant: "team-a",
			scope: "read write",
			iss: env.AUTH_ISSUER,
			aud: "session-trees",
		});

		expect(readOnly.code).toBe(0);
		const reader = await auth.authenticate(`Bearer ${readOnly.stdout.trim()}`);
		expect(reader).toMatchObject({ workspaceId: "team-b", subject: "dev" });
		expect([...reader.scopes]).toEqual(["read"]);
		expect(reader.expiresAt).toBeLessThanOrEqual(Date.now() + 3600 * 1000);

		expect(usage.code).toBe(2);
		expect(usage.stdout).toBe("");
		expect(usage.stderr).toMatch(/--scope takes read, write and admin, e\.g\. read,write; got "superuser"/);
		expect(usage.stderr).toMatch(/usage: npm run token -- --workspace <id> --scope <read,write>/);

		expect(noSecret.code).toBe(2);
		expect(noSecret.stdout).toBe("");
		expect(noSecret.stderr).toMatch(/AUTH_JWT_SECRET is not set/);
	});
});

describe("parseTokenArgs", () => {
	const base = ["--workspace", "w", "--scope", "read"];

	it("reads scopes in any order and separator, once each", () => {
		expect(parseTokenArgs(["-w", "w", "-s", "write,read"])?.scopes).toEqual(["read", "write"]);
		expect(parseTokenArgs(["-w", "w", "-s", "write read write"])?.scopes).toEqual(["read", "write"]);
		expect(parseTokenArgs(["-w", "w", "--scope=write"])?.scopes).toEqual(["write"]);
		// admin is a scope of its own: write does not imply it, and it is given only when named.
		expect(parseTokenArgs(["-w", "w", "-s", "admin,read"])?.scopes).toEqual(["read", "admin"]);
	});

	it("reads durations in seconds, minutes, hours and days, defaulting to an hour", () => {
		expect(parseTokenArgs(base)?.ttlS).toBe(3600);
		expect(parseTokenArgs([...base, "--ttl", "90"])?.ttlS).toBe(90);
		expect(parseTokenArgs([...base, "--ttl", "90s"])?.ttlS).toBe(90);
		expect(parseTokenArgs([...base, "--ttl", "15m"])?.ttlS).toBe(900);
		expect(parseTokenArgs([...base, "--ttl", "7d"])?.ttlS).toBe(7 * 86_400);
	});

	it("refuses what it cannot use", () => {
		const refused = (args: string[], message: RegExp) => {
			expect(() => parseTokenArgs(args)).toThrow(UsageError);
			expect(() => parseTokenArgs(args)).toThrow(message);
		};
		refused(["--scope", "read"], /--workspace is required/);
		refused(["--workspace", " ", "--scope", "read"], /--workspace is required/);
		refused(["--workspace", "w"], /--scope is required/);
		refused(["--workspace", "w", "--scope", ""], /--scope takes/);
		refused(["--workspace", "w", "--scope", "read,superuser"], /--scope takes/);
		refused([...base, "--ttl", "0"], /--ttl must be a duration/);
		refused([...base, "--ttl", "1w"], /--ttl must be a duration/);
		refused([...base, "--ttl", "400d"], /at most 366d/);
		refused([...base, "--subject", ""], /--subject must not be empty/);
		refused([...base, "--admin"], /Unknown option '--admin'/);
		refused([...base, "extra"], /Unexpected argument 'extra'/);
		expect(parseTokenArgs(["--help"])).toBeNull();
	});
});

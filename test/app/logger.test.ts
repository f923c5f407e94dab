/**
 * Logs say what happened, never what users sent: a failed statement's error
 * carries the SQL and every parameter (a whole entry, a whole file), and a
 * full disk once produced a 1 MB log line of message content.
 */
import { DrizzleQueryError } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createLogger, type LogFormat } from "../../src/logger.js";

function capture(format: LogFormat = "pretty") {
	const lines: string[] = [];
	return { lines, logger: createLogger("debug", (line) => lines.push(line), format) };
}

describe.each(["pretty", "json"] as const)("logger (%s)", (format) => {
	it("logs a failed query's cause, not its SQL or parameters", () => {
		const { lines, logger } = capture(format);
		const payload = `secret-${"x".repeat(1_000_000)}`;
		const cause = Object.assign(new Error("could not extend file: No space left on device"), {
			code: "53100",
		});
		logger.error("unexpected error", {
			error: new DrizzleQueryError("insert into entries …", [payload], cause),
		});
		expect(lines).toHaveLength(1);
		expect(lines[0]).toContain("53100");
		expect(lines[0]).toContain("No space left on device");
		expect(lines[0]).not.toContain("secret-");
		expect(lines[0]?.length).toBeLessThan(3_000);
	});

	it("clips any field to a bounded length", () => {
		const { lines, logger } = capture(format);
		logger.warn("something", { detail: "y".repeat(100_000), object: { big: "z".repeat(100_000) } });
		expect(lines[0]?.length).toBeLessThan(5_000);
		expect(lines[0]).toMatch(/more characters/);
	});
});

describe("JSON lines", () => {
	it("one object per line: time, level name, message, fields; below the level nothing", () => {
		const lines: string[] = [];
		const logger = createLogger("info", (line) => lines.push(line), "json");
		logger.debug("hidden");
		logger.info("request", { requestId: "r-1", ms: 12, code: undefined });
		expect(lines).toHaveLength(1);
		const line = JSON.parse(lines[0] as string);
		expect(line).toMatchObject({ level: "info", msg: "request", requestId: "r-1", ms: 12, pid: process.pid });
		expect(Number.isNaN(Date.parse(line.time))).toBe(false);
		expect(line).not.toHaveProperty("code");
	});

	it("an error field is its cause as text, not an empty object", () => {
		const lines: string[] = [];
		createLogger("info", (line) => lines.push(line), "json").error("failed", {
			error: Object.assign(new Error("connection refused"), { code: "ECONNREFUSED" }),
		});
		expect(JSON.parse(lines[0] as string).error).toMatch(/^Error ECONNREFUSED: connection refused/);
	});
});

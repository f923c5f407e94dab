/**
 * Structured logs in one of two shapes: JSON lines (pino) for machines, the
 * default in production; or one readable line, `time LEVEL msg key=value …`,
 * for a terminal. Callers use the `Logger` interface either way. Whatever the
 * shape, a field is clipped and an error reduced to its cause (`describeError`):
 * logs say what happened, never what users sent.
 */
import { pino } from "pino";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFormat = "json" | "pretty";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
	debug(message: string, fields?: Record<string, unknown>): void;
	info(message: string, fields?: Record<string, unknown>): void;
	warn(message: string, fields?: Record<string, unknown>): void;
	error(message: string, fields?: Record<string, unknown>): void;
}

/** A log field never carries more than this: logs must not become a copy of request payloads. */
const MAX_FIELD_LENGTH = 2000;

function clip(text: string): string {
	return text.length <= MAX_FIELD_LENGTH
		? text
		: `${text.slice(0, MAX_FIELD_LENGTH)}…(${text.length - MAX_FIELD_LENGTH} more characters)`;
}

/**
 * What an error says, without what it carries: a failed query's error (Drizzle's) holds the SQL
 * and every parameter, i.e. the user's data; its cause (the database's own error) does not.
 */
export function describeError(error: Error): string {
	let current: unknown = error;
	while (current instanceof Error && "query" in current && "params" in current && current.cause) {
		current = current.cause;
	}
	const shown = current instanceof Error ? current : error;
	const code = (shown as { code?: unknown }).code;
	const head = `${shown.name}${typeof code === "string" ? ` ${code}` : ""}: ${shown.message}`;
	const frames = (shown.stack ?? "").split("\n").filter((line) => line.trimStart().startsWith("at "));
	return [head, ...frames.slice(0, 8)].join("\n");
}

/** A field as it may be logged: strings and errors clipped, anything larger than a field as clipped JSON text. */
function bounded(value: unknown): unknown {
	if (value instanceof Error) return clip(describeError(value));
	if (typeof value === "string") return clip(value);
	if (value === null || typeof value !== "object") return value;
	const json = JSON.stringify(value) ?? String(value);
	return json.length <= MAX_FIELD_LENGTH ? value : clip(json);
}

function format(value: unknown): string {
	const shown = bounded(value);
	if (typeof shown === "string") {
		return /^[\w./:@-]*$/.test(shown) && shown !== "" ? shown : JSON.stringify(shown);
	}
	return JSON.stringify(shown) ?? String(shown);
}

function defined(fields: Record<string, unknown>): Array<[string, unknown]> {
	return Object.entries(fields).filter(([, v]) => v !== undefined);
}

function prettyLogger(level: LogLevel, write: (line: string) => void): Logger {
	const emit =
		(at: LogLevel) =>
		(message: string, fields: Record<string, unknown> = {}) => {
			if (ORDER[at] < ORDER[level]) return;
			const rest = defined(fields)
				.map(([k, v]) => `${k}=${format(v)}`)
				.join(" ");
			write(`${new Date().toISOString()} ${at.toUpperCase().padEnd(5)} ${message}${rest ? ` ${rest}` : ""}`);
		};
	return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

/** One JSON object a line: `time` (ISO), `level` (name), `msg`, `pid`, then the fields. */
function jsonLogger(level: LogLevel, destination: pino.DestinationStream): Logger {
	const log = pino(
		{
			level,
			base: { pid: process.pid },
			timestamp: pino.stdTimeFunctions.isoTime,
			formatters: { level: (label) => ({ level: label }) },
		},
		destination,
	);
	const emit =
		(at: LogLevel) =>
		(message: string, fields: Record<string, unknown> = {}) => {
			if (!log.isLevelEnabled(at)) return;
			log[at](Object.fromEntries(defined(fields).map(([k, v]) => [k, bounded(v)])), message);
		};
	return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

/**
 * Standard error, written asynchronously: a write to a pipe or file blocks
 * a Node process (on Linux), so a slow reader of the logs (a container's log
 * driver, a busy parent process) would stall every request that logs. Lines
 * still buffered when the process exits are written then.
 */
function asyncStderr(): pino.DestinationStream {
	const destination = pino.destination({ dest: 2, sync: false });
	process.once("exit", () => {
		try {
			destination.flushSync();
		} catch {
			// Nothing was buffered, or standard error is gone: nothing more can be written.
		}
	});
	return destination;
}

/** `write` receives each line without its newline; by default JSON lines go to standard error asynchronously. */
export function createLogger(
	level: LogLevel = "info",
	write?: (line: string) => void,
	logFormat: LogFormat = "pretty",
): Logger {
	if (logFormat === "pretty") return prettyLogger(level, write ?? ((l) => process.stderr.write(`${l}\n`)));
	return jsonLogger(
		level,
		write
			? // pino ends each line with "\n"; `write` is given lines without.
				{ write: (line: string) => write(line.endsWith("\n") ? line.slice(0, -1) : line) }
			: asyncStderr(),
	);
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * One-line structured logs: `time level message key=value …`, so an operator
 * can read what happened and a machine can still grep it.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";
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

function format(value: unknown): string {
	if (value instanceof Error) return JSON.stringify(clip(describeError(value)));
	if (typeof value === "string") {
		const clipped = clip(value);
		return /^[\w./:@-]*$/.test(clipped) && clipped !== "" ? clipped : JSON.stringify(clipped);
	}
	return clip(JSON.stringify(value) ?? String(value));
}

export function createLogger(
	level: LogLevel = "info",
	write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Logger {
	const emit =
		(at: LogLevel) =>
		(message: string, fields: Record<string, unknown> = {}) => {
			if (ORDER[at] < ORDER[level]) return;
			const rest = Object.entries(fields)
				.filter(([, v]) => v !== undefined)
				.map(([k, v]) => `${k}=${format(v)}`)
				.join(" ");
			write(`${new Date().toISOString()} ${at.toUpperCase().padEnd(5)} ${message}${rest ? ` ${rest}` : ""}`);
		};
	return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

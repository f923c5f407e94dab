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

function format(value: unknown): string {
	if (value instanceof Error) return JSON.stringify(value.stack ?? value.message);
	if (typeof value === "string")
		return /^[\w./:@-]*$/.test(value) && value !== "" ? value : JSON.stringify(value);
	return JSON.stringify(value);
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

/**
 * `npm run follow -- [--url URL] [--token TOKEN] [--workspace ID] [--once] PATH...`
 * (also `session-tree follow …`)
 *
 * Follows pi's session files into the service as pi writes them
 * (src/follow/follower.ts): over the API of a running service with `--url`,
 * else straight into the store DATABASE_URL / PGLITE_DIR configure (like
 * `npm run import`). Runs until stopped (Ctrl-C, SIGTERM), or with `--once`
 * catches up and exits: 0 when every file is up to date, 1 when any
 * conflicted or failed, 2 on usage errors.
 */

import { homedir } from "node:os";
import { join } from "node:path";
import { ConfigError, describeStore, inputLimitsConfig, storeConfig } from "../config.js";
import type { FollowEvent, FollowStats } from "../follow/events.js";
import { Follower } from "../follow/follower.js";
import { Positions } from "../follow/positions.js";
import { endpointOf, remoteSink } from "../follow/remote.js";
import { FollowError, kindOfCode, lineOf, type Sink } from "../follow/sink.js";
import { isSessionError } from "../session/errors.js";
import { openStore } from "../store/open.js";
import { DEFAULT_WORKSPACE } from "../store/store.js";
import { readArgs, UsageError } from "./usage.js";

const USAGE = `usage: npm run follow -- [--url URL] [--token TOKEN] [--workspace ID] [--once] [--poll] [--state FILE] PATH...

Follows pi's session files into the service as pi writes them: new files as
pi creates them, new lines as pi appends them. PATH is a pi sessions
directory (~/.pi/agent/sessions, searched recursively for *.jsonl) or files.

  --url URL           a running service (http://host:4000, or its /graphql endpoint);
                      without it, the store configured as for the server (DATABASE_URL,
                      PGLITE_DIR), written to directly
  --token TOKEN       a bearer token with the write scope (default: $SESSION_TREE_TOKEN)
  -w, --workspace ID  the workspace (default "${DEFAULT_WORKSPACE}"); with --url the token
                      names it, and a given one must be the token's
  --once              catch up and exit: 0 when every file is up to date, 1 when any
                      conflicted or failed
  --poll              poll the files instead of the system's notifications (network
                      filesystems)
  --state FILE        where the positions in each file are kept (default
                      $XDG_STATE_HOME/session-tree/follow.json, ~/.local/state/… without it)
  -h, --help          show this help`;

interface Args {
	url: string | null;
	token: string | null;
	workspace: string | null;
	once: boolean;
	poll: boolean;
	state: string;
	paths: string[];
	help: boolean;
}

function defaultState(): string {
	const base = process.env.XDG_STATE_HOME || join(homedir(), ".local", "state");
	return join(base, "session-tree", "follow.json");
}

function parseArgs(argv: readonly string[]): Args {
	const args: Args = {
		url: null,
		token: process.env.SESSION_TREE_TOKEN || null,
		workspace: null,
		once: false,
		poll: false,
		state: defaultState(),
		paths: [],
		help: false,
	};
	let options = true;
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i] as string;
		const [name, inline] =
			arg.startsWith("--") && arg.includes("=")
				? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
				: [arg, undefined];
		const value = () => {
			const given = inline ?? argv[++i];
			if (given === undefined || given.trim() === "") throw new UsageError(`${name} needs a value`);
			return given.trim();
		};
		if (!options) args.paths.push(arg);
		else if (arg === "--") options = false;
		else if (arg === "-h" || arg === "--help") args.help = true;
		else if (name === "--url") args.url = value();
		else if (name === "--token") args.token = value();
		else if (name === "-w" || name === "--workspace") args.workspace = value();
		else if (name === "--state") args.state = value();
		else if (arg === "--once") args.once = true;
		else if (arg === "--poll") args.poll = true;
		else if (arg.startsWith("-") && arg !== "-") throw new UsageError(`unknown option ${arg}`);
		else args.paths.push(arg);
	}
	if (!args.help && args.paths.length === 0) throw new UsageError("no file or directory given");
	if (args.url !== null) {
		try {
			endpointOf(args.url);
		} catch {
			throw new UsageError(`--url ${args.url} is not a URL`);
		}
	}
	return args;
}

/** The configured store as a sink: its errors read as a remote service's would. */
async function storeSink(workspace: string): Promise<{ sink: Sink; destination: string }> {
	const config = storeConfig();
	const store = await openStore(config, { limits: inputLimitsConfig() });
	const sink: Sink = {
		async continueSession(request) {
			try {
				const continued = await store.continueSession(workspace, request);
				return {
					sessionId: continued.sessionId,
					created: continued.created,
					appended: continued.appended,
					held: continued.held,
					lastSeq: continued.lastSeq,
				};
			} catch (error) {
				if (!isSessionError(error)) throw new FollowError("unavailable", (error as Error).message);
				throw new FollowError(kindOfCode(error.code, error.field), error.message, lineOf(error.message));
			}
		},
		close: () => store.close(),
	};
	return { sink, destination: `${describeStore(config)} workspace ${workspace}` };
}

/** Reports on a terminal with a status line, elsewhere one line per event. */
function reporter(out: NodeJS.WriteStream, stats: () => FollowStats) {
	const live = out.isTTY === true;
	let status = "";
	const summary = (s: FollowStats) =>
		`${s.files} files · ${s.upToDate} up to date · ${s.linesSent} lines sent · ${s.conflicts} conflicted · ${s.failed} failed`;
	const line = (text: string) => {
		if (live && status) out.write("\r\x1b[2K");
		out.write(`${text}\n`);
		if (live) {
			status = summary(stats());
			out.write(status);
		}
	};
	const retried = new Set<string>();
	return {
		event(event: FollowEvent) {
			switch (event.kind) {
				case "watching":
					line(
						`watching ${event.paths.join(", ")} (${event.backend === "native" ? "file notifications" : "polling"})`,
					);
					return;
				case "ready":
					line(`found ${event.files} session files`);
					return;
				case "sent":
					retried.delete(event.path);
					if (event.answer.created || event.answer.appended > 0 || event.answer.held > 0) {
						// Lines the service held already: sent again after a restart, or by another follower.
						const held = event.answer.held > 0 ? `, ${event.answer.held} already held` : "";
						line(
							`${event.answer.created ? "new" : "sent"} ${event.path}: ${event.answer.appended} lines${held} (session ${event.answer.sessionId}, ${event.answer.lastSeq} entries)`,
						);
					}
					return;
				case "resync":
					line(`resending ${event.path}: ${event.reason}`);
					return;
				case "partial":
					// pi writes a line in one call: a torn one is finished moments later, and sent then.
					return;
				case "conflict":
					line(
						`conflict ${event.path}${event.line === undefined ? "" : ` at line ${event.line}`}: ${event.message}`,
					);
					return;
				case "failed":
					line(`failed ${event.path}: ${event.message}`);
					return;
				case "retrying":
					// Once per outage and file: the next line about it says it got through.
					if (!retried.has(event.path)) line(`retrying ${event.path}: ${event.message}`);
					retried.add(event.path);
					return;
				case "removed":
					line(`no longer following ${event.path}: it was deleted`);
					return;
				case "denied":
					line(`stopped: the service refused the token: ${event.message}`);
					return;
			}
		},
		/** Something went wrong that costs no lines (a positions write). */
		warning(message: string) {
			line(`warning: ${message}`);
		},
		finish() {
			if (live && status) out.write("\r\x1b[2K");
			out.write(`${summary(stats())}\n`);
		},
	};
}

async function main(argv: readonly string[]): Promise<number> {
	const args = await readArgs("follow", USAGE, argv, parseArgs);
	if (typeof args === "number") return args;

	let sink: Sink;
	let destination: string;
	try {
		if (args.url !== null) {
			const remote = remoteSink({ url: args.url, ...(args.token ? { token: args.token } : {}) });
			const viewer = await remote.viewer();
			if (args.workspace !== null && viewer.workspaceId !== args.workspace) {
				process.stderr.write(
					`follow: the token is for workspace ${viewer.workspaceId}, not ${args.workspace}\n`,
				);
				return 2;
			}
			if (!viewer.scopes.includes("write")) {
				process.stderr.write("follow: the token has no write scope\n");
				return 2;
			}
			sink = remote;
			destination = `${endpointOf(args.url)} workspace ${viewer.workspaceId}`;
		} else ({ sink, destination } = await storeSink(args.workspace ?? DEFAULT_WORKSPACE));
	} catch (error) {
		process.stderr.write(`follow: ${error instanceof Error ? error.message : String(error)}\n`);
		return error instanceof ConfigError ? 2 : 1;
	}
	let follower: Follower | null = null;
	const report = reporter(
		process.stderr,
		() => follower?.stats() ?? { files: 0, upToDate: 0, linesSent: 0, conflicts: 0, failed: 0 },
	);
	let positions: Positions;
	try {
		positions = await Positions.open(args.state, destination, (error) => report.warning(error.message));
	} catch (error) {
		await sink.close();
		process.stderr.write(`follow: ${(error as Error).message} (--state names another file)\n`);
		return 2;
	}
	follower = new Follower({
		paths: args.paths,
		sink,
		positions,
		polling: args.poll,
		onEvent: (event) => report.event(event),
		...(args.once ? { giveUpAfterMs: 60_000 } : {}),
	});
	process.stderr.write(`following into ${destination}\n`);
	const stopped = new Promise<void>((resolve) => {
		process.once("SIGINT", resolve);
		process.once("SIGTERM", resolve);
	});
	try {
		await follower.start();
		if (args.once) await Promise.race([follower.idle(), stopped, follower.done]);
		else await Promise.race([stopped, follower.done]);
	} finally {
		await follower.stop();
		await sink.close();
		report.finish();
	}
	const stats = follower.stats();
	if (follower.denied) return 1;
	return args.once && stats.conflicts + stats.failed > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
	(code) => {
		process.exit(code);
	},
	(error: unknown) => {
		process.stderr.write(
			`follow: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
		);
		process.exit(1);
	},
);

/**
 * The measured operations. Each pairs a store call with its raw-Postgres
 * baseline (baseline.ts) and says how many iterations it runs: reads of a
 * whole 1000-entry session and imports cost far more than one append, so
 * they run fewer times to keep the whole run near two minutes on 2 cores.
 */
import type { ParsedSessionFile } from "../src/session/jsonl.js";
import type { PgStore } from "../src/store/postgres/store.js";
import type { RawBaseline } from "./baseline.js";
import { concurrent, type Plan, type Runner, sequential } from "./measure.js";
import { messageDraft, WORKSPACE } from "./workload.js";

/** Clients appending at once in the concurrency case, each on a session of its own. */
const APPENDERS = 8;

/** Rows per page of the append log, a typical UI page. */
const PAGE = 100;

/** The imported session every read case reads: both sides read the very same rows. */
export interface ReadSession {
	sessionId: string;
	/** Entries root → leaf, to check that each side reads the whole path. */
	pathLength: number;
}

export interface StoreSide {
	store: PgStore;
	read: ReadSession;
	text: string;
}

export interface BaselineSide {
	raw: RawBaseline;
	read: ReadSession;
	/** The file parsed once, outside any timing. */
	parsed: ParsedSessionFile;
}

export interface OperationCase {
	key: string;
	title: string;
	plan(iterations: number): Plan;
	/** Seeds what the operation needs (outside timing) and returns its runner. */
	store(side: StoreSide): Promise<Runner>;
	baseline(side: BaselineSide): Promise<Runner>;
}

/**
 * Sequential cases alternate store and baseline in ten rounds: load from
 * other work on the machine drifts within seconds, and finer alternation
 * spreads it more evenly over both sides.
 */
const ROUNDS = 10;

/**
 * Concurrent rounds are fewer and longer: each round starts and drains all
 * clients, and those ramps would dominate rounds of a few appends per client.
 */
const CONCURRENT_ROUNDS = 4;

const scaled = (iterations: number, factor: number, min: number) =>
	Math.max(min, Math.round(iterations * factor));

/** A read returned a different number of rows than the session holds: timing it would mean nothing. */
function expectRows(what: string, got: number, want: number): void {
	if (got !== want) throw new Error(`${what} returned ${got} rows, expected ${want}`);
}

/** The own fields of the entry the store appends, for the baseline to write the same payload. */
function messagePayload(index: number): Record<string, unknown> {
	const { type: _type, ...own } = messageDraft(index);
	return own;
}

const append: OperationCase = {
	key: "append",
	title: "append one message entry",
	plan: (n) => ({ warmup: scaled(n, 0.1, 5), iterations: n, rounds: ROUNDS }),
	async store({ store }) {
		const { sessionId } = await store.createSession(WORKSPACE, { sessionId: "append-store" });
		return sequential((i) => store.appendEntry(WORKSPACE, sessionId, messageDraft(i)));
	},
	async baseline({ raw }) {
		await raw.createSession(WORKSPACE, "append-raw");
		return sequential((i) => raw.append(WORKSPACE, "append-raw", messagePayload(i)));
	},
};

/** Whole-path reads: the raw side of both is the same recursive CTE. */
const pathBaseline = async ({ raw, read }: BaselineSide): Promise<Runner> => {
	expectRows("baseline path", (await raw.path(WORKSPACE, read.sessionId)).length, read.pathLength);
	return sequential(() => raw.path(WORKSPACE, read.sessionId));
};

const context: OperationCase = {
	key: "context",
	title: "context of a ~1000-entry path",
	plan: (n) => ({ warmup: scaled(n, 0.025, 3), iterations: scaled(n, 0.25, 5), rounds: ROUNDS }),
	async store({ store, read }) {
		const { messages } = await store.context(WORKSPACE, read.sessionId);
		if (messages.length === 0) throw new Error("store context is empty");
		return sequential(() => store.context(WORKSPACE, read.sessionId));
	},
	baseline: pathBaseline,
};

const activePath: OperationCase = {
	key: "activePath",
	title: "active path (full) of ~1000 entries",
	plan: (n) => ({ warmup: scaled(n, 0.025, 3), iterations: scaled(n, 0.25, 5), rounds: ROUNDS }),
	async store({ store, read }) {
		const path = await store.activePath(WORKSPACE, read.sessionId, { full: true });
		expectRows("store activePath", path.length, read.pathLength);
		return sequential(() => store.activePath(WORKSPACE, read.sessionId, { full: true }));
	},
	baseline: pathBaseline,
};

const logPage: OperationCase = {
	key: "logPage",
	title: `append log page of ${PAGE}`,
	plan: (n) => ({ warmup: scaled(n, 0.1, 5), iterations: n, rounds: ROUNDS }),
	async store({ store, read }) {
		const page = await store.listEntries(WORKSPACE, read.sessionId, { limit: PAGE });
		expectRows("store listEntries", page.length, Math.min(PAGE, read.pathLength));
		return sequential(() => store.listEntries(WORKSPACE, read.sessionId, { limit: PAGE }));
	},
	async baseline({ raw, read }) {
		const page = await raw.logPage(WORKSPACE, read.sessionId, PAGE);
		expectRows("baseline log page", page.length, Math.min(PAGE, read.pathLength));
		return sequential(() => raw.logPage(WORKSPACE, read.sessionId, PAGE));
	},
};

/** Each import is a new session: ids never repeat, since imported entries cannot be deleted. */
const importFile: OperationCase = {
	key: "import",
	title: "import the pi session file",
	plan: (n) => ({ warmup: 1, iterations: scaled(n, 0.05, 3), rounds: ROUNDS }),
	async store({ store, text }) {
		return sequential((i) => store.importSession(WORKSPACE, text, { sessionId: `import-store-${i}` }));
	},
	async baseline({ raw, parsed }) {
		return sequential((i) => raw.importRows(WORKSPACE, `import-raw-${i}`, parsed));
	},
};

const concurrentAppends: OperationCase = {
	key: "append×8",
	title: `${APPENDERS} concurrent appenders, one session each`,
	plan: (n) => ({ warmup: APPENDERS * 2, iterations: n * 2, rounds: CONCURRENT_ROUNDS }),
	async store({ store }) {
		const ids: string[] = [];
		for (let w = 0; w < APPENDERS; w++) {
			ids.push((await store.createSession(WORKSPACE, { sessionId: `concurrent-store-${w}` })).sessionId);
		}
		return concurrent(APPENDERS, (w, i) => store.appendEntry(WORKSPACE, ids[w] as string, messageDraft(i)));
	},
	async baseline({ raw }) {
		for (let w = 0; w < APPENDERS; w++) await raw.createSession(WORKSPACE, `concurrent-raw-${w}`);
		return concurrent(APPENDERS, (w, i) => raw.append(WORKSPACE, `concurrent-raw-${w}`, messagePayload(i)));
	},
};

export const CASES: readonly OperationCase[] = [
	append,
	context,
	activePath,
	logPage,
	importFile,
	concurrentAppends,
];

/**
 * Preloaded into the real server for the fan-out benchmark
 * (`node --import tsx --import ./bench/fanout-probe.ts src/main.ts`), and only
 * there: it changes nothing the server does, it reports when each append
 * committed. `PgStore.appendEntry` (inherited or its own) is wrapped so that
 * the instant its promise resolves, i.e. the transaction has committed and
 * the store has the entry in hand, goes to the parent process over IPC as
 * `{ kind: "commit", seq, at }`, `at` in nanoseconds of CLOCK_MONOTONIC
 * (`process.hrtime.bigint()`), the clock the benchmark's receipt times use.
 * The bare baseline (bench/fanout-bare.ts) reports the same instant: just
 * before it publishes.
 *
 * It also reports when the session's feed first pushes each entry to the
 * subscribers' streams (`{ kind: "push", seq, at }`, from
 * `EntryStream.prototype.push`, once per entry object): commit → push is
 * the notice's trip and the feed's read, push → receipt the fan-out itself.
 *
 * The patches are on the classes' prototypes, so it reaches the store the server
 * opens (this module and main.ts import the same module instance); it fails
 * loudly if the method is gone, rather than measuring nothing.
 */
import { EntryStream } from "../src/events/entry-stream.js";
import type { StoredEntry } from "../src/session/entry.js";
import { PgStore } from "../src/store/postgres/store.js";

type Append = PgStore["appendEntry"];

const original = PgStore.prototype.appendEntry as Append | undefined;
if (typeof original !== "function") throw new Error("fanout-probe: PgStore.prototype.appendEntry is gone");

PgStore.prototype.appendEntry = async function (this: PgStore, ...args: Parameters<Append>) {
	const result = await original.apply(this, args);
	const at = process.hrtime.bigint();
	process.send?.({ kind: "commit", seq: result.entry.seq, at: String(at) });
	return result;
};

const push = EntryStream.prototype.push as ((entry: StoredEntry) => void) | undefined;
if (typeof push !== "function") throw new Error("fanout-probe: EntryStream.prototype.push is gone");
const pushed = new WeakSet<StoredEntry>();

EntryStream.prototype.push = function (this: EntryStream, entry: StoredEntry) {
	if (!pushed.has(entry)) {
		pushed.add(entry);
		process.send?.({ kind: "push", seq: entry.seq, at: String(process.hrtime.bigint()) });
	}
	return push.call(this, entry);
};

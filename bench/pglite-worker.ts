/**
 * PGlite in this thread against PGlite on a worker thread: what one call
 * costs (append, point and list reads, a context), and how long the event
 * loop is held while the context of a long session is computed.
 *
 *   npx tsx bench/pglite-worker.ts [entries of the long session, default 50000]
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPgliteWorker } from "../src/store/pglite-worker/worker-store.js";
import { openPglite } from "../src/store/postgres/open.js";
import { type SessionStore, DEFAULT_WORKSPACE as ws } from "../src/store/store.js";

const LONG = Number(process.argv[2] ?? 50_000);

const message = (i: number) => ({
	type: "message" as const,
	message: { role: "user", content: `message ${i}`, timestamp: 1_767_225_600_000 + i },
});

function chainJsonl(sessionId: string, count: number): string {
	const lines: unknown[] = [
		{ type: "session", version: 3, id: sessionId, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/bench" },
	];
	for (let i = 0; i < count; i++) {
		lines.push({
			...message(i),
			id: `m${i}`,
			parentId: i === 0 ? null : `m${i - 1}`,
			timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
		});
	}
	return `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
}

const quantile = (sorted: number[], q: number) =>
	sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

async function timed(times: number, fn: (i: number) => Promise<unknown>): Promise<string> {
	const ms: number[] = [];
	for (let i = 0; i < times; i++) {
		const start = performance.now();
		await fn(i);
		ms.push(performance.now() - start);
	}
	ms.sort((a, b) => a - b);
	return `p50 ${quantile(ms, 0.5).toFixed(2)} ms, p95 ${quantile(ms, 0.95).toFixed(2)} ms`;
}

/** The longest gap between 1 ms timer ticks: how long this thread could not serve anything else. */
function watchEventLoop(): { stop(): Promise<number> } {
	let last = performance.now();
	let longest = 0;
	const tick = () => {
		const now = performance.now();
		longest = Math.max(longest, now - last);
		last = now;
	};
	const timer = setInterval(tick, 1);
	return {
		// One more tick after the call resolved: a hold that ended with it is counted too.
		stop: () =>
			new Promise((resolve) =>
				setTimeout(() => {
					clearInterval(timer);
					tick();
					resolve(longest);
				}, 1),
			),
	};
}

async function measure(name: string, open: (dir: string) => Promise<SessionStore>, template: string) {
	const root = mkdtempSync(join(tmpdir(), "bench-pglite-worker-"));
	const dir = join(root, "data");
	cpSync(template, dir, { recursive: true });
	const report: Record<string, string> = {};
	let start = performance.now();
	const store = await open(dir);
	report.open = `${(performance.now() - start).toFixed(0)} ms`;
	try {
		await store.createSession(ws, { sessionId: "short" });
		report["appendEntry ×1000"] = await timed(1_000, (i) => store.appendEntry(ws, "short", message(i)));
		report["getSession ×1000"] = await timed(1_000, () => store.getSession(ws, "short"));
		report["listEntries(50) ×300"] = await timed(300, (i) =>
			store.listEntries(ws, "short", { afterSeq: (i * 3) % 950, limit: 50 }),
		);
		report["context(1000) ×50"] = await timed(50, () => store.context(ws, "short"));

		await store.importSession(ws, chainJsonl("long", LONG));
		const held = watchEventLoop();
		start = performance.now();
		const context = await store.context(ws, "long");
		const took = performance.now() - start;
		const longest = await held.stop();
		if (context.messages.length !== LONG) throw new Error("the long context is incomplete");
		report[`context(${LONG})`] = `${took.toFixed(0)} ms, event loop held up to ${longest.toFixed(0)} ms`;
	} finally {
		await store.close();
		rmSync(root, { recursive: true, force: true });
	}
	process.stdout.write(`\n${name}\n`);
	for (const [what, value] of Object.entries(report)) process.stdout.write(`  ${what.padEnd(24)} ${value}\n`);
}

const template = mkdtempSync(join(tmpdir(), "bench-pglite-template-"));
try {
	await (await openPglite(template)).close();
	await measure("PGlite in this thread (openPglite)", (dir) => openPglite(dir), template);
	await measure("PGlite on a worker thread (openPgliteWorker)", (dir) => openPgliteWorker(dir), template);
} finally {
	rmSync(template, { recursive: true, force: true });
}

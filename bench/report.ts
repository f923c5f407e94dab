/**
 * Output: a table for people, then one line `JSON:` followed by the same
 * results for machines (CI can diff runs or fail on a ratio).
 */
import { loadavg } from "node:os";
import type { Stats } from "./measure.js";

/** The load averages (1, 5, 15 min) as a run prints them beside its figures. */
export const load = () =>
	loadavg()
		.map((x) => x.toFixed(2))
		.join(" ");

export type Backend = "postgres" | "pglite";

export interface CaseResult {
	op: string;
	title: string;
	/** Where the store ran; the baseline always ran raw postgres.js on the Postgres server. */
	backend: Backend;
	store: Stats;
	baseline: Stats;
	/** Store median / baseline median: how many times the raw work the store takes. */
	ratio: number;
}

export interface RunInfo {
	startedAt: string;
	server: { origin: string; version: string };
	machine: { cpus: number; node: string; platform: string };
	iterations: number;
	sessionFile: { source: string; lines: number; bytes: number };
	durationMs?: number;
}

const BACKEND_LABEL: Record<Backend, string> = {
	postgres: "postgres",
	pglite: "pglite (mem)*",
};

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const rate = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

export function ratioOf(store: Stats, baseline: Stats): number {
	return store.medianMs / baseline.medianMs;
}

export function formatTable(results: readonly CaseResult[]): string {
	const header = [
		"op",
		"backend",
		"n",
		"store med ms",
		"store p95 ms",
		"base med ms",
		"base p95 ms",
		"ratio",
		"store ops/s",
		"base ops/s",
	];
	const rows = results.map((r) => [
		r.op,
		BACKEND_LABEL[r.backend],
		String(r.store.iterations),
		ms(r.store.medianMs),
		ms(r.store.p95Ms),
		ms(r.baseline.medianMs),
		ms(r.baseline.p95Ms),
		`${r.ratio.toFixed(2)}x`,
		rate(r.store.opsPerSec),
		rate(r.baseline.opsPerSec),
	]);
	return formatColumns(header, rows, 2);
}

/**
 * A table of figures as text: the header, a rule, the rows; each column as
 * wide as its widest cell, the first `names` columns left-aligned and the
 * figures right-aligned.
 */
export function formatColumns(header: readonly string[], rows: readonly string[][], names = 1): string {
	const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] as string).length)));
	const line = (cells: readonly string[]) =>
		cells
			.map((cell, i) => (i < names ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
			.join("  ");
	const rule = widths.map((w) => "-".repeat(w)).join("  ");
	return [line(header), rule, ...rows.map(line)].join("\n");
}

export function formatLegend(results: readonly CaseResult[]): string {
	const titles = new Map(results.map((r) => [r.op, r.title]));
	return [
		...[...titles].map(([op, title]) => `  ${op.padEnd(12)} ${title}`),
		"  baseline     raw postgres.js on the same server and schema (tagged templates, so prepared",
		"               statements); context and activePath share one baseline, the bare path CTE",
		"  ratio        store median / baseline median (1.00x = no overhead over raw postgres.js)",
		"  ops/s        operations / wall time; for append×8 that is the throughput of all 8 clients",
		"  * pglite (mem): the store on in-memory PGlite in this process (openPglite(undefined)),",
		"    against the same raw postgres.js baseline on the Postgres server as the postgres rows.",
	].join("\n");
}

/** Rounded so the line stays readable; microseconds are below the noise anyway. */
function rounded(stats: Stats): Stats {
	const r = (x: number, digits: number) => Number(x.toFixed(digits));
	return {
		iterations: stats.iterations,
		medianMs: r(stats.medianMs, 3),
		p95Ms: r(stats.p95Ms, 3),
		meanMs: r(stats.meanMs, 3),
		opsPerSec: r(stats.opsPerSec, 1),
	};
}

export function formatJson(info: RunInfo, results: readonly CaseResult[]): string {
	return JSON.stringify({
		...info,
		results: results.map((r) => ({
			...r,
			store: rounded(r.store),
			baseline: rounded(r.baseline),
			ratio: Number(r.ratio.toFixed(3)),
		})),
	});
}

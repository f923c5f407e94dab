/**
 * What Linux tells of a process (/proc): its resident memory and the CPU it
 * has used, for the benchmarks' server processes.
 */
import { readFileSync } from "node:fs";

/** USER_HZ: 100 on Linux for every architecture Node runs on. */
const CLOCK_TICKS = 100;

/** Resident set size (VmRSS), bytes. */
export function rssOf(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, "utf8");
	const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
	if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
	return Number(kb) * 1024;
}

/** User + system CPU time, seconds: utime + stime of /proc/<pid>/stat (fields 14 and 15, after the parenthesised name). */
export function cpuOf(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

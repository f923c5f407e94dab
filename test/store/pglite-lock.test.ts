import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openPglite } from "../../src/store/postgres/open.js";
import { DEFAULT_WORKSPACE } from "../../src/store/store.js";

describe("a PGlite data directory has one owner", () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), "session-tree-lock-"));
	});
	afterEach(() => {
		rmSync(dir, { recursive: true, force: true });
	});

	it("refuses a second opener while the first is open, and lets it in after close", async () => {
		const first = await openPglite(dir);
		await first.createSession(DEFAULT_WORKSPACE, { sessionId: "kept" });
		await expect(openPglite(dir)).rejects.toThrow(/is in use by another store in this process/);
		await first.close();
		const second = await openPglite(dir);
		expect(await second.getSession(DEFAULT_WORKSPACE, "kept")).not.toBeNull();
		await second.close();
	});

	it("refuses a directory that a live process holds (a running server), naming the process", async () => {
		// The parent of this test process is alive for the whole test.
		writeFileSync(join(dir, "session-tree.lock"), String(process.ppid));
		await expect(openPglite(dir)).rejects.toThrow(new RegExp(`is in use by process ${process.ppid}`));
	});

	it("takes over a lock left behind by a process that has exited", async () => {
		const exited = spawnSync(process.execPath, ["-e", "process.pid"]);
		writeFileSync(join(dir, "session-tree.lock"), String(exited.pid));
		const store = await openPglite(dir);
		expect(await store.getSession(DEFAULT_WORKSPACE, "none")).toBeNull();
		await store.close();
	});
});

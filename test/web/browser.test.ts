/**
 * The web app in a real Chromium (playwright-core driving Debian's
 * `chromium`), through the real service on the memory backend: what a
 * person sees on the sessions list, a session's tree and the dashboard, and
 * that live updates resume after a dropped WebSocket with nothing missed
 * and nothing twice. Every wait is a condition with a bound; screenshots go
 * to test/web/artifacts/ (ignored by git).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Follower } from "../../src/follow/follower.js";
import { Positions } from "../../src/follow/positions.js";
import { remoteSink } from "../../src/follow/remote.js";
import { DEFAULT_WORKSPACE } from "../../src/store/store.js";
import {
	type Browser,
	type BrowserContext,
	findChromium,
	launchChromium,
	type Page,
	type WebSocketRoute,
} from "../../web/e2e/browser.js";
import { assistantMessage, branchyJsonl, ok, uniqueId, userMessage } from "../graphql/http.js";
import { SessionManager } from "../support/pi-oracle.js";
import { piAssistant, piUsage, piUser } from "../support/pi-sessions.js";
import type { TestServer } from "../support/server.js";
import { ensureWebBuild, startWebTestServer, type WebTestServer } from "./support.js";

const chromiumPath = findChromium();
if (!chromiumPath) {
	// CI installs Chromium (.ci/run); anywhere else the rest of the suite runs without these.
	if (process.env.CI)
		throw new Error("No Chromium found (install Debian's chromium package or set CHROMIUM_PATH)");
	console.warn(
		"test/web/browser.test.ts skipped: no Chromium (apt-get install chromium, or set CHROMIUM_PATH)",
	);
}

const ARTIFACTS = new URL("./artifacts/", import.meta.url);
const WAIT = { timeout: 10_000 };

describe.skipIf(!chromiumPath)("web app in Chromium", () => {
	let server: WebTestServer;
	let browser: Browser;
	let context: BrowserContext;

	beforeAll(async () => {
		ensureWebBuild();
		mkdirSync(ARTIFACTS, { recursive: true });
		[server, browser] = await Promise.all([startWebTestServer(), launchChromium(chromiumPath as string)]);
		context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	}, 120_000);

	afterAll(async () => {
		await context?.close();
		await browser?.close();
		await server?.close();
	});

	const api = <T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>) =>
		ok<T>(server.api, query, variables);

	const createSession = (sessionId: string, name: string) =>
		api(`mutation ($input: CreateSessionInput!) { createSession(input: $input) { sessionId } }`, {
			input: { sessionId, name, cwd: "/work/web-test" },
		});

	const append = (sessionId: string, entryId: string, message: unknown) =>
		api(`mutation ($input: AppendEntryInput!) { appendEntry(input: $input) { entry { seq } } }`, {
			input: { sessionId, entryId, entry: { message } },
		});

	const moveLeaf = (sessionId: string, targetId: string, summary?: string) =>
		api(`mutation ($input: MoveLeafInput!) { moveLeaf(input: $input) { session { leafId } } }`, {
			input: { sessionId, targetId, ...(summary ? { summary: { summary } } : {}) },
		});

	const setLabel = (sessionId: string, targetId: string, label: string) =>
		api(`mutation ($input: SetLabelInput!) { setLabel(input: $input) { entry { seq } } }`, {
			input: { sessionId, targetId, label },
		});

	/**
	 * u1 → a1 → u2 → a2, then back to a1 with a summary (s1) and on from
	 * there: u3 → a3, the leaf. u1 is labelled "start".
	 */
	async function branchedSession(label = "branched"): Promise<string> {
		const id = uniqueId(label);
		await createSession(id, `Web ${label}`);
		await append(id, "u1", userMessage("first question"));
		await append(id, "a1", assistantMessage("first answer"));
		await append(id, "u2", userMessage("abandoned question"));
		await append(id, "a2", assistantMessage("abandoned answer"));
		await moveLeaf(id, "a1", "Tried the abandoned approach; it failed.");
		await append(id, "u3", userMessage("second question"));
		await append(id, "a3", assistantMessage("second answer"));
		await setLabel(id, "u1", "start");
		return id;
	}

	const treeRows = (page: Page) => page.locator('[role="tree"] [role="treeitem"]');
	const row = (page: Page, entryId: string) => page.locator(`[role="treeitem"][data-entry-id="${entryId}"]`);

	async function openSession(sessionId: string): Promise<Page> {
		const page = await context.newPage();
		await page.goto(`${server.origin}/sessions/${encodeURIComponent(sessionId)}`);
		await page.locator('[role="tree"]').waitFor(WAIT);
		return page;
	}

	/** Every tree row's entry id, in order; fails on a duplicate. */
	async function rowIds(page: Page): Promise<string[]> {
		const ids = await treeRows(page).evaluateAll((rows) =>
			rows.map((r) => r.getAttribute("data-entry-id") ?? ""),
		);
		expect(new Set(ids).size, `duplicate rows in ${ids.join(",")}`).toBe(ids.length);
		return ids;
	}

	const leafOf = async (sessionId: string) =>
		(
			await api<{ session: { leafId: string } }>(
				`query ($id: String!) { session(sessionId: $id) { leafId } }`,
				{
					id: sessionId,
				},
			)
		).session.leafId;

	async function apiNodeIds(sessionId: string, target: TestServer = server.api): Promise<string[]> {
		const data = await ok<{
			session: { entries: { edges: Array<{ node: { entryId: string; type: string } }> } };
		}>(
			target,
			`query ($id: String!) { session(sessionId: $id) { entries(first: 500) { edges { node { entryId type } } } } }`,
			{ id: sessionId },
		);
		return data.session.entries.edges
			.map((e) => e.node)
			.filter((n) => n.type !== "LEAF")
			.map((n) => n.entryId);
	}

	/** The GraphQL operations a page sends over HTTP, by operation name. */
	function httpOperations(page: Page): string[] {
		const names: string[] = [];
		page.on("request", (request) => {
			if (!request.url().endsWith("/graphql") || request.method() !== "POST") return;
			const body = request.postDataJSON() as { operationName?: string; query?: string } | null;
			names.push(body?.operationName ?? body?.query?.match(/^\s*\w+\s+(\w+)/)?.[1] ?? "?");
		});
		return names;
	}

	it("the sessions list shows sessions created after it was read: before its subscription reached the server, and after; it filters by name", async () => {
		const page = await context.newPage();
		const gap = uniqueId("created-in-gap");
		// The list's subscription is held back until a session was created: after the list's read,
		// before the server starts the feed. A feed "from now" would never show that session.
		/** The afterCursor of each subscription of the list's feed, and the activityCursor of each list answer. */
		const feedStarts: unknown[] = [];
		const listCursors: string[] = [];
		await page.routeWebSocket(/\/graphql$/, (route) => {
			const toServer = route.connectToServer();
			let held = false;
			route.onMessage(async (message) => {
				if (String(message).includes("SessionListActivity")) {
					feedStarts.push(JSON.parse(String(message)).payload?.variables?.afterCursor);
					if (!held) {
						held = true;
						await createSession(gap, "Created in the gap");
					}
				}
				toServer.send(message);
			});
		});
		page.on("response", async (response) => {
			if (!response.request().postData()?.includes("query SessionList(")) return;
			const cursor = (await response.json().catch(() => null))?.data?.sessions?.activityCursor;
			if (typeof cursor === "string") listCursors.push(cursor);
		});
		await page.goto(`${server.origin}/`);
		await page.getByRole("heading", { name: "Sessions" }).waitFor(WAIT);
		await page.locator(`tr[data-session-id="${gap}"]`).waitFor(WAIT);
		await page.locator(".connection-live").waitFor(WAIT);
		const id = uniqueId("created-live");
		await createSession(id, "Created while watching");
		const created = page.locator(`tr[data-session-id="${id}"]`);
		await created.waitFor(WAIT);
		await expect.poll(() => created.textContent(), WAIT).toContain("Created while watching");
		// Activity on it updates its row in place.
		await append(id, "u1", userMessage("hello"));
		await expect.poll(() => created.locator('[data-testid="session-entries"]').textContent(), WAIT).toBe("1");

		await page.getByLabel("Filter sessions").fill("while watching");
		await expect.poll(() => page.locator("tbody tr").count(), WAIT).toBe(1);
		await page.getByLabel("Filter sessions").fill("no such session anywhere");
		await expect.poll(() => page.locator("tbody tr").count(), WAIT).toBe(0);
		await page.screenshot({ path: new URL("sessions.png", ARTIFACTS).pathname });

		// Back from a session's page, the list comes from the client's cache first, then from the
		// server: the feed starts from the server's answer, and stays live.
		// Filtered to that one row first: in the whole list, rows move as they sort by activity.
		await page.getByLabel("Filter sessions").fill("while watching");
		await expect.poll(() => page.locator("tbody tr").count(), WAIT).toBe(1);
		await created.getByRole("link").click();
		await page.locator('[role="tree"]').waitFor(WAIT);
		expect(new URL(page.url()).pathname).toBe(`/sessions/${id}`);
		const answered = listCursors.length;
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sessions" }).click();
		for (const name of ["Created after coming back", "Created after that"]) {
			const later = uniqueId("created-after-return");
			await createSession(later, name);
			await page.locator(`tr[data-session-id="${later}"]`).waitFor(WAIT);
		}
		// Not the cached answer's cursor: what happened while away is in the fresh list, not replayed.
		expect(feedStarts).toHaveLength(2);
		expect(feedStarts[1]).toBe(listCursors[answered]);
		expect(feedStarts[1]).not.toBe(listCursors[answered - 1]);
		await page.close();
	});

	it("renders the tree like pi's /tree: active path marked, labels, branch summary, leaf pointer", async () => {
		const id = await branchedSession("tree");
		const page = await openSession(id);
		await row(page, "a3").waitFor(WAIT);
		expect(await rowIds(page)).toHaveLength((await apiNodeIds(id)).length);
		const active = await page
			.locator('[role="treeitem"][data-active-path="true"]')
			.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-entry-id")));
		const branch = await api<{ session: { branch: Array<{ entryId: string }> } }>(
			`query ($id: String!) { session(sessionId: $id) { branch(full: true) { entryId } } }`,
			{ id },
		);
		expect(new Set(active)).toEqual(new Set(branch.session.branch.map((e) => e.entryId)));
		expect(await row(page, "u2").getAttribute("data-active-path")).toBeNull();
		expect(await row(page, "u1").textContent()).toContain("[start]");
		// Labelling appended a label entry under a3: that entry is the leaf now, as in pi.
		const leafId = await leafOf(id);
		expect(await row(page, leafId).getAttribute("data-leaf")).toBe("true");
		expect(await row(page, leafId).textContent()).toContain("← leaf");
		expect(await row(page, leafId).textContent()).toContain("[label: start]");
		await expect
			.poll(() => page.locator('[role="treeitem"].type-branch-summary').textContent(), WAIT)
			.toContain("Tried the abandoned approach");
		// pi's layout: the active branch first, the abandoned one indented under the branch point.
		const ids = await rowIds(page);
		expect(ids.indexOf("u3")).toBeLessThan(ids.indexOf("u2"));
		expect(Number(await row(page, "u2").getAttribute("aria-level"))).toBeGreaterThan(1);
		await page.screenshot({ path: new URL("session.png", ARTIFACTS).pathname });
		await page.close();
	});

	it("moves the selection with the keyboard (ARIA tree) and shows the entry and its context", async () => {
		const id = await branchedSession("keys");
		const page = await openSession(id);
		const selected = page.locator('[role="treeitem"][aria-selected="true"]');
		// Opens on the leaf, as pi does.
		await expect.poll(() => selected.getAttribute("data-entry-id"), WAIT).toBe(await leafOf(id));
		await selected.focus();
		await page.keyboard.press("Home");
		await expect.poll(() => selected.getAttribute("data-entry-id"), WAIT).toBe("u1");
		await page.keyboard.press("ArrowDown");
		await expect.poll(() => selected.getAttribute("data-entry-id"), WAIT).toBe("a1");
		expect(await page.evaluate(() => document.activeElement?.getAttribute("data-entry-id"))).toBe("a1");
		// a1 is the branch point: → goes to its first child (the active branch's summary), ← back up.
		await page.keyboard.press("ArrowRight");
		await expect.poll(() => selected.getAttribute("class"), WAIT).toContain("type-branch-summary");
		await page.keyboard.press("ArrowLeft");
		await expect.poll(() => selected.getAttribute("data-entry-id"), WAIT).toBe("a1");
		await page.keyboard.press("End");
		await expect.poll(() => selected.getAttribute("data-entry-id"), WAIT).not.toBe("a1");

		// Click the abandoned question: its entry, and the context the model would see from it.
		await row(page, "u2").click();
		await expect.poll(() => selected.getAttribute("data-entry-id"), WAIT).toBe("u2");
		const entryText = page.getByTestId("entry-text");
		await expect.poll(() => entryText.textContent(), WAIT).toBe("abandoned question");
		const context = await api<{ session: { context: { messages: unknown[] } } }>(
			`query ($id: String!) { session(sessionId: $id) { context(fromId: "u2") { messages } } }`,
			{ id },
		);
		const items = page.locator('[data-testid="context"] .context-message');
		await expect.poll(() => items.count(), WAIT).toBe(context.session.context.messages.length);
		expect(await items.last().textContent()).toContain("abandoned question");
		expect(await page.getByTestId("context").textContent()).not.toContain("second question");
		await page.close();
	});

	it("compares two selected nodes through Session.compare: common ancestor and the diverging paths", async () => {
		const id = await branchedSession("compare");
		const page = await context.newPage();
		const operations = httpOperations(page);
		await page.goto(`${server.origin}/sessions/${encodeURIComponent(id)}`);
		await row(page, "a2").click();
		await page.getByRole("button", { name: "Compare from this entry (A)" }).click();
		await row(page, "a3").click();
		const ancestor = page.getByTestId("common-ancestor");
		await expect.poll(() => ancestor.getAttribute("data-entry-id"), WAIT).toBe("a1");
		expect(await ancestor.textContent()).toContain("assistant: first answer");
		const ids = (name: string) =>
			page
				.getByTestId(`compare-path-${name}`)
				.locator("li")
				.evaluateAll((items) => items.map((li) => li.getAttribute("data-entry-id")));
		const summary = (await rowIds(page)).find((entryId) => !/^[ua]\d$/.test(entryId));
		expect(await ids("A")).toEqual(["u2", "a2"]);
		expect(await ids("B")).toEqual([summary, "u3", "a3"]);
		expect(operations).toContain("SessionCompare");
		await page.close();
	});

	it("search finds an entry in another session, and its hit opens that session on the entry", async () => {
		const other = uniqueId("searched");
		await createSession(other, "Searched session");
		await append(other, "q1", userMessage("how do we rotate the zanzibar credentials?"));
		await append(other, "r1", assistantMessage("Rotate the zanzibar keys first, then restart."));
		await append(other, "q2", userMessage("thanks"));
		const page = await context.newPage();
		await page.goto(`${server.origin}/`);
		await page.getByLabel("Search entries").fill("zanzibar credentials");
		const hit = page.locator('[data-testid="search-hit"][data-entry-id="q1"]');
		await hit.waitFor(WAIT);
		expect(await page.getByTestId("search-hit").count()).toBe(1);
		expect(await hit.textContent()).toContain("Searched session");
		expect(await hit.textContent()).toContain("user: how do we rotate the zanzibar credentials?");
		// The matched words are marked from the answer's ranges, as text.
		expect(await hit.locator("mark").allTextContents()).toEqual(["zanzibar", "credentials"]);

		await hit.getByRole("link").click();
		await page.waitForURL(/\/sessions\//, WAIT);
		expect(new URL(page.url()).pathname).toBe(`/sessions/${other}`);
		const selected = page.locator('[role="treeitem"][aria-selected="true"]');
		await expect.poll(() => selected.getAttribute("data-entry-id"), WAIT).toBe("q1");
		await expect
			.poll(() => page.getByTestId("entry-text").textContent(), WAIT)
			.toBe("how do we rotate the zanzibar credentials?");
		await page.close();
	});

	it("shows appends, leaf moves with a summary and labels on two pages at once, each within 1 s", async () => {
		const id = await branchedSession("live");
		const pages = await Promise.all([openSession(id), openSession(id)]);
		const SOON = { timeout: 1_000 };
		await Promise.all(pages.map((page) => row(page, "a3").waitFor(WAIT)));
		await Promise.all(pages.map((page) => page.locator(".connection-live").waitFor(WAIT)));

		await append(id, "u4", userMessage("live question"));
		await Promise.all(pages.map((page) => row(page, "u4").waitFor(SOON)));
		for (const page of pages) expect(await row(page, "u4").getAttribute("data-leaf")).toBe("true");

		await moveLeaf(id, "a2", "Back to the first attempt.");
		const summary = await leafOf(id);
		for (const page of pages) {
			await row(page, summary).waitFor(SOON);
			await expect.poll(() => row(page, "a2").getAttribute("data-active-path"), SOON).toBe("true");
			expect(await row(page, summary).textContent()).toContain("Back to the first attempt.");
			expect(await row(page, "u4").getAttribute("data-active-path")).toBeNull();
		}

		await setLabel(id, "a2", "retry here");
		for (const page of pages) {
			await expect.poll(() => row(page, "a2").textContent(), SOON).toContain("[retry here]");
		}
		const expected = await apiNodeIds(id);
		for (const page of pages) {
			await expect.poll(async () => (await rowIds(page)).length, SOON).toBe(expected.length);
			expect(await rowIds(page)).toEqual(expect.arrayContaining(expected));
			await page.close();
		}
	});

	it("a pi session being followed: its page shows pi's lines and its going back as pi writes them, the list marks it live, a dashboard opened after opens with it", async () => {
		const dir = mkdtempSync(join(tmpdir(), "web-follow-"));
		const pi = SessionManager.create("/work/followed", join(dir, "sessions"));
		const u1 = pi.appendMessage(piUser("followed question"));
		pi.appendMessage(piAssistant("followed answer", piUsage(1, 1, 0, 0, 0)));
		const sessionId = pi.getSessionId();
		const follower = new Follower({
			paths: [join(dir, "sessions")],
			sink: remoteSink({ url: server.api.url }),
			positions: await Positions.open(join(dir, "positions.json"), server.api.url),
		});
		try {
			await follower.start();
			await follower.idle();
			const page = await openSession(sessionId);
			await page.locator(".connection-live").waitFor(WAIT);
			const SOON = { timeout: 1_000 };
			const next = pi.appendMessage(piUser("written by pi just now"));
			await row(page, next).waitFor(SOON);
			expect(await row(page, next).getAttribute("data-leaf")).toBe("true");
			// pi goes back to its first question and asks again: the leaf moves there, the old answer stays.
			pi.branch(u1);
			const again = pi.appendMessage(piAssistant("answered again", piUsage(1, 1, 0, 0, 0)));
			await row(page, again).waitFor(SOON);
			await expect.poll(() => row(page, again).getAttribute("data-leaf"), SOON).toBe("true");
			expect(await row(page, next).getAttribute("data-active-path")).toBeNull();

			await page.goto(`${server.origin}/`);
			await page.locator(`tr[data-session-id="${sessionId}"] [data-testid="session-live"]`).waitFor(WAIT);
			await page.goto(`${server.origin}/dashboard`);
			// Opened after the writes: the feed shows them at once, not "waiting".
			await expect
				.poll(() => page.getByTestId("activity-feed").textContent(), WAIT)
				.toContain("answered again");
			await page.close();
		} finally {
			await follower.stop();
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it("resumes after the WebSocket drops: the entries appended in the gap arrive, each exactly once", async () => {
		const id = await branchedSession("resume");
		const page = await context.newPage();
		// Every graphql-ws connection of the page passes through here, so the test can cut it, keep it
		// away while it appends, and see what the page asks for when it subscribes again.
		let refuse = false;
		const sockets: Array<[page: WebSocketRoute, server: WebSocketRoute]> = [];
		const subscribes: Array<{ query: string; variables: Record<string, unknown> }> = [];
		const delivered: number[] = [];
		await page.routeWebSocket(/\/graphql$/, (ws) => {
			if (refuse) {
				ws.close({ code: 1001, reason: "test: server away" });
				return;
			}
			const upstream = ws.connectToServer();
			sockets.push([ws, upstream]);
			ws.onMessage((message) => {
				const parsed = JSON.parse(String(message));
				if (parsed.type === "subscribe") subscribes.push(parsed.payload);
				upstream.send(message);
			});
			upstream.onMessage((message) => {
				const parsed = JSON.parse(String(message));
				const seq = parsed.payload?.data?.sessionEvents?.seq;
				if (parsed.type === "next" && typeof seq === "number") delivered.push(seq);
				ws.send(message);
			});
		});
		await page.goto(`${server.origin}/sessions/${encodeURIComponent(id)}`);
		await row(page, "a3").waitFor(WAIT);
		await page.locator(".connection-live").waitFor(WAIT);
		await append(id, "u4", userMessage("before the drop"));
		await row(page, "u4").waitFor(WAIT);
		const seen = Number(await row(page, "u4").getAttribute("data-seq"));

		refuse = true;
		for (const [pageSide, serverSide] of sockets) {
			await serverSide.close({ code: 1000, reason: "test: dropped" });
			await pageSide.close({ code: 1001, reason: "test: dropped" });
		}
		await page.locator(".connection-reconnecting").waitFor(WAIT);
		await append(id, "a4", assistantMessage("appended in the gap"));
		await append(id, "u5", userMessage("also in the gap"));
		refuse = false;

		await row(page, "u5").waitFor({ timeout: 10_000 });
		await append(id, "a5", assistantMessage("after the reconnect"));
		await row(page, "a5").waitFor(WAIT);

		const resubscribe = subscribes.filter((s) => s.query.includes("sessionEvents")).at(-1);
		expect(resubscribe?.variables.afterSeq).toBe(seen);
		expect(
			delivered.filter((seq, i) => delivered.indexOf(seq) !== i),
			"events delivered twice",
		).toEqual([]);
		const ids = await rowIds(page);
		expect(ids).toHaveLength((await apiNodeIds(id)).length);
		expect(ids).toEqual(expect.arrayContaining(["u4", "a4", "u5", "a5"]));
		await page.close();
	});

	it("resumes after the server restarts under the page (Postgres, same port): every entry shown exactly once", async () => {
		// A database that outlives the server; the second instance listens on the first one's port, so
		// the page's origin, and the URL graphql-ws reconnects to, stay the same.
		const first = await startWebTestServer("postgres");
		let second: WebTestServer | undefined;
		const page = await context.newPage();
		try {
			const id = uniqueId("restart");
			const appendOn = (target: WebTestServer, entryId: string, message: unknown) =>
				ok(
					target.api,
					`mutation ($input: AppendEntryInput!) { appendEntry(input: $input) { entry { seq } } }`,
					{ input: { sessionId: id, entryId, entry: { message } } },
				);
			await ok(
				first.api,
				`mutation ($input: CreateSessionInput!) { createSession(input: $input) { sessionId } }`,
				{ input: { sessionId: id, name: "Web restart", cwd: "/work/web-test" } },
			);
			await appendOn(first, "u1", userMessage("first question"));
			await appendOn(first, "a1", assistantMessage("first answer"));

			// What the page asks for at each (re)subscribe, and every event it is sent, by seq.
			const subscribes: Array<{ variables?: Record<string, unknown> }> = [];
			const delivered: number[] = [];
			page.on("websocket", (ws) => {
				ws.on("framesent", ({ payload }) => {
					const parsed = JSON.parse(String(payload));
					if (parsed.type === "subscribe" && String(parsed.payload?.query).includes("sessionEvents"))
						subscribes.push(parsed.payload);
				});
				ws.on("framereceived", ({ payload }) => {
					const seq = JSON.parse(String(payload)).payload?.data?.sessionEvents?.seq;
					if (typeof seq === "number") delivered.push(seq);
				});
			});
			await page.goto(`${first.origin}/sessions/${encodeURIComponent(id)}`);
			await row(page, "a1").waitFor(WAIT);
			await page.locator(".connection-live").waitFor(WAIT);
			await appendOn(first, "u2", userMessage("shown before the restart"));
			await row(page, "u2").waitFor(WAIT);
			const seen = Number(await row(page, "u2").getAttribute("data-seq"));

			const stopped = Date.now();
			await first.api.running.close(2_000);
			await page.locator(".connection-reconnecting").waitFor(WAIT);
			second = await startWebTestServer("postgres", {
				...(first.api.databaseUrl === undefined ? {} : { databaseUrl: first.api.databaseUrl }),
				port: Number(new URL(first.origin).port),
			});
			expect(second.origin).toBe(first.origin);
			await appendOn(second, "a2", assistantMessage("appended right after the restart"));
			await appendOn(second, "u3", userMessage("also after the restart"));
			await row(page, "u3").waitFor(WAIT);
			console.info(
				`restart: the page showed the new server's entries ${Date.now() - stopped} ms after the old one closed`,
			);
			await page.locator(".connection-live").waitFor(WAIT);
			await appendOn(second, "a3", assistantMessage("live again"));
			await row(page, "a3").waitFor(WAIT);

			expect(subscribes.length).toBeGreaterThan(1);
			expect(subscribes.at(-1)?.variables?.afterSeq).toBe(seen);
			expect(
				delivered.filter((seq, i) => delivered.indexOf(seq) !== i),
				"events delivered twice",
			).toEqual([]);
			const ids = await rowIds(page);
			expect(ids).toHaveLength((await apiNodeIds(id, second.api)).length);
			expect([...ids].sort()).toEqual(["a1", "a2", "a3", "u1", "u2", "u3"]);
		} finally {
			await page.close();
			await second?.close();
			// Closing the first server again only drops the database it created.
			await first.close();
		}
	});

	it("opens pi's 1,002-entry session with the active path", async () => {
		const path = new URL("../../../shared/fixtures/pi/large-session.v1.jsonl", import.meta.url);
		const jsonl = readFileSync(
			process.env.PI_FIXTURES_DIR ? `${process.env.PI_FIXTURES_DIR}/large-session.v1.jsonl` : path,
			"utf8",
		);
		const id = uniqueId("large");
		await api(`mutation ($input: ImportSessionInput!) { importSession(input: $input) { sessionId } }`, {
			input: { jsonl, sessionId: id },
		});
		const page = await openSession(id);
		const expected = await api<{ session: { leafId: string; branch: Array<{ entryId: string }> } }>(
			`query ($id: String!) { session(sessionId: $id) { leafId branch(full: true) { entryId } } }`,
			{ id },
		);
		await row(page, expected.session.leafId).waitFor(WAIT);
		await expect
			.poll(() => page.locator('[role="treeitem"][data-active-path="true"]').count(), WAIT)
			.toBe(expected.session.branch.length);
		await page.screenshot({ path: new URL("large-session.png", ARTIFACTS).pathname });
		await page.close();
	});

	it("loads a tree larger than one page in pages: the first at once, then the last entry and the active path", async () => {
		const id = uniqueId("paged");
		// Straight into the store: 2,500 entries with branches and labels, more than one 2,000-node page.
		await server.api.services.store.importSession(DEFAULT_WORKSPACE, branchyJsonl(id, 5, 2_500));
		const expected = await api<{
			session: { leafId: string; branch: Array<{ entryId: string }>; tree: { totalCount: number } };
		}>(
			`query ($id: String!) { session(sessionId: $id) { leafId branch(full: true) { entryId } tree(first: 1) { totalCount } } }`,
			{ id },
		);
		expect(expected.session.tree.totalCount).toBeGreaterThan(2_000);
		const page = await context.newPage();
		const operations = httpOperations(page);
		// The second page is held until the test has seen the first one drawn on its own.
		let release = () => {};
		const held = new Promise<void>((resolve) => {
			release = resolve;
		});
		await page.route(/\/graphql$/, async (route) => {
			const body = route.request().postDataJSON() as {
				operationName?: string;
				variables?: { after?: string };
			};
			if (body?.operationName === "TreePage" && body.variables?.after) await held;
			await route.continue();
		});
		await page.goto(`${server.origin}/sessions/${encodeURIComponent(id)}`);
		await page.getByTestId("tree-loading").waitFor(WAIT);
		const firstPage = await rowIds(page);
		expect(firstPage).toHaveLength(2_000);
		const onBranch = new Set(expected.session.branch.map((e) => e.entryId));
		// Before the leaf's page arrives the active path is the server's, on the nodes loaded so far.
		const activeNow = await page
			.locator('[role="treeitem"][data-active-path="true"]')
			.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-entry-id")));
		expect(new Set(activeNow)).toEqual(new Set(firstPage.filter((entryId) => onBranch.has(entryId))));
		expect(activeNow.length).toBeGreaterThan(0);
		release();
		const leaf = row(page, expected.session.leafId);
		await leaf.waitFor(WAIT);
		await page.getByTestId("tree-loading").waitFor({ state: "detached", ...WAIT });
		expect(await leaf.getAttribute("data-leaf")).toBe("true");
		await expect
			.poll(() => page.locator('[role="treeitem"][data-active-path="true"]').count(), WAIT)
			.toBe(expected.session.branch.length);
		expect(await treeRows(page).count()).toBe(expected.session.tree.totalCount);
		expect(operations.filter((name) => name === "TreePage")).toHaveLength(2);
		await page.close();
	});

	it("shows who views a session: both pages list two viewers, one marked you; a focus moves within 1 s; a closed page leaves", async () => {
		const id = await branchedSession("presence");
		const [a, b] = await Promise.all([openSession(id), openSession(id)]);
		const viewers = (page: Page) => page.getByRole("list", { name: "Viewing now" }).getByRole("listitem");
		const ownViewer = async (page: Page) => {
			const you = viewers(page).filter({ hasText: "(you)" });
			await expect.poll(() => you.count(), WAIT).toBe(1);
			return (await you.getAttribute("data-viewer-ids")) ?? "";
		};
		for (const page of [a, b]) {
			await expect.poll(() => viewers(page).count(), WAIT).toBe(2);
			expect(await viewers(page).allTextContents()).toEqual(
				expect.arrayContaining([expect.stringContaining("anonymous (you)")]),
			);
		}
		const [viewerA, viewerB] = [await ownViewer(a), await ownViewer(b)];
		expect(viewerA).not.toBe(viewerB);
		const marker = (page: Page, entryId: string) => row(page, entryId).getByTestId("row-viewers");

		// Each page opens on the leaf and says so; the other page draws that viewer on the row.
		const leaf = await leafOf(id);
		await marker(b, leaf).waitFor(WAIT);
		expect(await marker(b, leaf).getAttribute("data-viewer-ids")).toBe(viewerA);
		await row(a, "u1").click();
		const moved = Date.now();
		await marker(b, "u1").waitFor({ timeout: 1_000 });
		console.info(`presence: A's focus shown on page B after ${Date.now() - moved} ms`);
		expect(await marker(b, "u1").getAttribute("data-viewer-ids")).toBe(viewerA);
		expect(await marker(b, "u1").textContent()).toContain("viewed by anonymous");
		expect(await marker(b, leaf).count()).toBe(0);
		// A page never marks its own focus (its selection is that), only the other's.
		expect(await marker(a, leaf).getAttribute("data-viewer-ids")).toBe(viewerB);
		expect(await marker(a, "u1").count()).toBe(0);

		await a.close();
		const closed = Date.now();
		await expect.poll(() => viewers(b).count(), { timeout: 5_000 }).toBe(1);
		console.info(`presence: closed page A left page B's viewers after ${Date.now() - closed} ms`);
		expect(await viewers(b).getAttribute("data-viewer-ids")).toBe(viewerB);
		await marker(b, "u1").waitFor({ state: "detached", timeout: 1_000 });
		await b.close();
	});

	it("the dashboard's totals equal the metrics API's, its charts draw, and both follow an append", async () => {
		const id = await branchedSession("dashboard");
		const page = await context.newPage();
		await page.goto(`${server.origin}/dashboard`);
		const totals = async () => {
			const data = await api<{
				metrics: { rows: Array<{ values: { entries: number; totalTokens: number } }> };
			}>(
				`{ metrics(query: { measures: [ENTRIES, TOTAL_TOKENS] }) { rows { values { entries totalTokens } } } }`,
			);
			return data.metrics.rows[0]?.values ?? { entries: 0, totalTokens: 0 };
		};
		const before = await totals();
		const shown = (testId: string) => page.getByTestId(testId).textContent();
		await expect.poll(() => shown("total-entries"), WAIT).toBe(before.entries.toLocaleString("en-US"));
		expect(await shown("total-tokens")).toBe(before.totalTokens.toLocaleString("en-US"));
		await expect
			.poll(
				() => page.locator('[data-testid="chart-sessions-per-day"] .recharts-bar-rectangle').count(),
				WAIT,
			)
			.toBeGreaterThan(0);
		await expect
			.poll(() => page.locator('[data-testid="chart-top-sessions"] .recharts-bar-rectangle').count(), WAIT)
			.toBeGreaterThan(0);

		await append(id, "u9", userMessage("counted on the dashboard"));
		const after = await totals();
		expect(after.entries).toBe(before.entries + 1);
		await expect.poll(() => shown("total-entries"), WAIT).toBe(after.entries.toLocaleString("en-US"));
		await expect
			.poll(() => page.getByTestId("activity-feed").textContent(), WAIT)
			.toContain("counted on the dashboard");
		await page.screenshot({ path: new URL("dashboard.png", ARTIFACTS).pathname });
		await page.close();
	});

	it("the dashboard's activity feed resumes after the WebSocket drops from the last cursor it showed", async () => {
		const id = await branchedSession("feed");
		const page = await context.newPage();
		let refuse = false;
		const sockets: Array<[page: WebSocketRoute, server: WebSocketRoute]> = [];
		const subscribes: Array<{ query: string; variables?: Record<string, unknown> }> = [];
		const cursors: string[] = [];
		await page.routeWebSocket(/\/graphql$/, (ws) => {
			if (refuse) {
				ws.close({ code: 1001, reason: "test: server away" });
				return;
			}
			const upstream = ws.connectToServer();
			sockets.push([ws, upstream]);
			ws.onMessage((message) => {
				const parsed = JSON.parse(String(message));
				if (parsed.type === "subscribe") subscribes.push(parsed.payload);
				upstream.send(message);
			});
			upstream.onMessage((message) => {
				const parsed = JSON.parse(String(message));
				const cursor = parsed.payload?.data?.sessionActivity?.cursor;
				if (parsed.type === "next" && typeof cursor === "string") cursors.push(cursor);
				ws.send(message);
			});
		});
		await page.goto(`${server.origin}/dashboard`);
		await page.locator(".connection-live").waitFor(WAIT);
		const feed = page.getByTestId("activity-feed");
		// The feed is subscribed once the dashboard's chunk has loaded: wait for its subscribe.
		await expect.poll(() => subscribes.some((s) => s.query.includes("sessionActivity")), WAIT).toBe(true);
		// The subscribe has left the page, but the server starts a feed without a cursor "from now on" once it
		// has taken the message in: an append before that is not the feed's (one CI run lost it so). A probe
		// is appended until the feed shows one, so the feed is live before the entry the case follows.
		let probes = 0;
		await expect
			.poll(async () => {
				probes += 1;
				await append(id, `probe${probes}`, userMessage(`feed probe ${probes}`));
				return feed.textContent();
			}, WAIT)
			.toContain("feed probe");
		await append(id, "u8", userMessage("seen before the drop"));
		await expect.poll(() => feed.textContent(), WAIT).toContain("seen before the drop");
		const lastSeen = cursors.at(-1);

		refuse = true;
		for (const [pageSide, serverSide] of sockets) {
			await serverSide.close({ code: 1000, reason: "test: dropped" });
			await pageSide.close({ code: 1001, reason: "test: dropped" });
		}
		await page.locator(".connection-reconnecting").waitFor(WAIT);
		await append(id, "u9", userMessage("appended while the feed was away"));
		refuse = false;

		await expect.poll(() => feed.textContent(), WAIT).toContain("appended while the feed was away");
		const resubscribe = subscribes.filter((s) => s.query.includes("sessionActivity")).at(-1);
		expect(resubscribe?.variables?.afterCursor).toBe(lastSeen);
		const items = await feed.locator("li").allTextContents();
		expect(items.filter((text) => text.includes("seen before the drop"))).toHaveLength(1);
		expect(items.filter((text) => text.includes("appended while the feed was away"))).toHaveLength(1);
		await page.close();
	});

	it("sorted by cost, the list is the server's order over every session: the costliest first, though not among the 200 latest", async () => {
		const withCost = (text: string, total: number, tokens = 1_000) => ({
			...assistantMessage(text),
			usage: {
				input: tokens,
				output: 0,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: tokens,
				cost: { input: total / 2, output: total / 2, cacheRead: 0, cacheWrite: 0, total },
			},
		});
		const costly = uniqueId("costly");
		const cheaper = uniqueId("cheaper");
		await createSession(costly, "Costliest session");
		await append(costly, "u1", userMessage("expensive question"));
		await append(costly, "a1", withCost("expensive answer", 9_000));
		await createSession(cheaper, "Cheaper session");
		await append(cheaper, "u1", userMessage("question"));
		await append(cheaper, "a1", withCost("answer", 4_000, 50_000_000));
		await append(cheaper, "a2", withCost("more", 1_000, 50_000_000));
		// Newer activity than both, so neither is among the 200 latest sessions the activity order lists.
		for (let i = 0; i < 205; i++) {
			await server.api.services.store.createSession(DEFAULT_WORKSPACE, { name: `Filler ${i}` });
		}
		const page = await context.newPage();
		const operations = httpOperations(page);
		await page.goto(`${server.origin}/`);
		await page.getByRole("heading", { name: "Sessions" }).waitFor(WAIT);
		await expect.poll(() => page.locator("tbody tr").count(), WAIT).toBeGreaterThan(0);
		expect(await page.locator(`tr[data-session-id="${costly}"]`).count()).toBe(0);

		await page.getByLabel("Sort by").selectOption("cost");
		const first = page.locator("tbody tr").first();
		await expect.poll(() => first.getAttribute("data-session-id"), WAIT).toBe(costly);
		expect(await page.locator("tbody tr").nth(1).getAttribute("data-session-id")).toBe(cheaper);
		await expect.poll(() => first.getByTestId("session-cost").textContent(), WAIT).toBe("$9000");
		expect(await page.locator("tbody tr").count()).toBe(50);
		expect(operations).toContain("RankedSessions");

		// The next page of the same order follows it.
		await page.getByRole("button", { name: "Show 50 more" }).click();
		await expect.poll(() => page.locator("tbody tr").count(), WAIT).toBe(100);
		expect(await page.locator("tbody tr").first().getAttribute("data-session-id")).toBe(costly);

		// Sorted by tokens: the cheaper session used far more of them.
		await page.getByLabel("Sort by").selectOption("tokens");
		await expect.poll(() => first.getAttribute("data-session-id"), WAIT).toBe(cheaper);
		await page.close();
	});
});

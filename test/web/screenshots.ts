/**
 * The README's screenshots (docs/screenshots/), one per page of the web app
 * at a laptop's 1280×800: `npm --prefix web run screenshots`. Not a test: the
 * browser tests save their own screenshots to test/web/artifacts/ (ignored by
 * git), and nothing in `npm test` writes into docs/.
 *
 * The service on the memory backend on a free port, with pi's two fixture
 * sessions imported (PI_FIXTURES_DIR, default ../shared/fixtures/pi) and a
 * few small sessions written through the API, driven by the same Chromium
 * and launch flags as the browser tests.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_LIMITS } from "../../src/config.js";
import { silentLogger } from "../../src/logger.js";
import { serve } from "../../src/server.js";
import { openServices } from "../../src/services.js";
import { findChromium, launchChromium, type Page } from "../../web/e2e/browser.js";
import { ensureWebBuild } from "./build.js";

const OUT = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));
const FIXTURES =
	process.env.PI_FIXTURES_DIR ?? fileURLToPath(new URL("../../../shared/fixtures/pi/", import.meta.url));
const VIEWPORT = { width: 1280, height: 800 };
const WAIT = { timeout: 15_000 };

const chromiumPath = findChromium();
if (!chromiumPath)
	throw new Error("No Chromium found (install Debian's chromium package or set CHROMIUM_PATH)");
ensureWebBuild();
mkdirSync(OUT, { recursive: true });

const services = await openServices({ backend: "memory" }, silentLogger);
const running = await serve({
	services,
	logger: silentLogger,
	port: 0,
	host: "127.0.0.1",
	development: true,
	limits: DEFAULT_LIMITS,
});
const origin = new URL(running.url).origin;
const browser = await launchChromium(chromiumPath);

async function graphql<T>(query: string, variables: Record<string, unknown>): Promise<T> {
	const response = await fetch(running.url, {
		method: "POST",
		headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
		body: JSON.stringify({ query, variables }),
	});
	const body = (await response.json()) as { data?: T; errors?: Array<{ message: string }> };
	if (body.errors?.length || !body.data) throw new Error(JSON.stringify(body.errors));
	return body.data;
}

const importFixture = async (file: string, name: string) => {
	const jsonl = readFileSync(join(FIXTURES, file), "utf8");
	const { importSession } = await graphql<{ importSession: { sessionId: string } }>(
		`mutation ($input: ImportSessionInput!) { importSession(input: $input) { sessionId } }`,
		{ input: { jsonl } },
	);
	await graphql(`mutation ($input: RenameSessionInput!) { renameSession(input: $input) { entry { seq } } }`, {
		input: { sessionId: importSession.sessionId, name },
	});
	return importSession.sessionId;
};

const append = (sessionId: string, entryId: string, message: unknown) =>
	graphql(`mutation ($input: AppendEntryInput!) { appendEntry(input: $input) { entry { seq } } }`, {
		input: { sessionId, entryId, entry: { message } },
	});

const user = (text: string) => ({ role: "user", content: text, timestamp: Date.now() });
const assistant = (text: string, model: string, tokens: number, cost: number) => ({
	role: "assistant",
	content: [{ type: "text", text }],
	provider: "anthropic",
	model,
	stopReason: "stop",
	timestamp: Date.now(),
	usage: {
		input: tokens,
		output: Math.round(tokens / 10),
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: tokens + Math.round(tokens / 10),
		cost: { input: cost * 0.7, output: cost * 0.3, cacheRead: 0, cacheWrite: 0, total: cost },
	},
});

/** A short conversation of today, so the dashboard has more than the fixtures' days and models. */
async function smallSession(name: string, model: string, turns: number) {
	const { createSession } = await graphql<{ createSession: { sessionId: string } }>(
		`mutation ($input: CreateSessionInput!) { createSession(input: $input) { sessionId } }`,
		{ input: { name, cwd: "/work/session-tree" } },
	);
	for (let i = 1; i <= turns; i++) {
		await append(createSession.sessionId, `u${i}`, user(`${name}: step ${i}`));
		await append(
			createSession.sessionId,
			`a${i}`,
			assistant(`Done with step ${i}.`, model, 4_000 * i, 0.02 * i),
		);
	}
}

async function shoot(page: Page, file: string) {
	// Fonts and charts settle; the caret and animations are not part of the picture.
	await page.evaluate(() => document.fonts.ready);
	await page.screenshot({ path: join(OUT, file), animations: "disabled", caret: "hide" });
	console.info(`wrote docs/screenshots/${file}`);
}

try {
	const large = await importFixture("large-session.v1.jsonl", "pi-mono: large session");
	await importFixture("before-compaction.v1.jsonl", "pi-mono: before compaction");
	await smallSession("Fix the flaky login test", "claude-sonnet-4-5", 3);
	await smallSession("Add search to the CLI", "gpt-5", 2);
	await smallSession("Review the migration plan", "claude-opus-4-1", 4);

	const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: "light" });
	const page = await context.newPage();

	await page.goto(`${origin}/`);
	await page.locator("tbody tr").nth(4).waitFor(WAIT);
	await page.locator(".connection-live").waitFor(WAIT);
	await shoot(page, "sessions.png");

	// Opened on the session's last answer (`?entry=`), so the entry pane shows a message and its context.
	const { session } = await graphql<{
		session: { tree: { edges: Array<{ node: { entryId: string; role: string | null } }> } };
	}>(
		`query ($id: String!) { session(sessionId: $id) { tree(first: 2000) { edges { node { entryId role } } } } }`,
		{
			id: large,
		},
	);
	const answer = session.tree.edges.map((e) => e.node).findLast((node) => node.role === "assistant");
	await page.goto(`${origin}/sessions/${encodeURIComponent(large)}?entry=${answer?.entryId ?? ""}`);
	await page.locator('[role="treeitem"][data-leaf="true"]').waitFor(WAIT);
	await page.getByTestId("entry-text").waitFor(WAIT);
	await page.getByTestId("tree-loading").waitFor({ state: "detached", ...WAIT });
	await page.locator('[data-testid="context"] .context-message').first().waitFor(WAIT);
	await shoot(page, "session.png");

	await page.goto(`${origin}/dashboard`);
	await page.locator('[data-testid="chart-sessions-per-day"] .recharts-bar-rectangle').first().waitFor(WAIT);
	await page.locator('[data-testid="chart-top-sessions"] .recharts-bar-rectangle').first().waitFor(WAIT);
	// The feed shows what happens while the page is open: a little activity to show.
	await page.locator(".connection-live").waitFor(WAIT);
	await smallSession("Write the release notes", "claude-sonnet-4-5", 2);
	await page.getByTestId("activity-feed").locator("li").nth(3).waitFor(WAIT);
	await shoot(page, "dashboard.png");
	await context.close();
} finally {
	await browser.close();
	await running.close(1_000);
}

/**
 * The docs run as written. Every GraphQL operation shown in the README and in
 * docs/ is sent to a server of this file's own and must answer without
 * errors (a subscription: its first event); every shell block runs in bash
 * from the checkout, with `127.0.0.1:4000` pointing at that server, a home
 * directory holding a pi session, and the memory store, and must exit 0
 * without a GraphQL error in what it prints. The few blocks that cannot run
 * here are named in NOT_RUN with the reason and the test that covers them
 * instead; a block that is neither fails. Relative links must name a file
 * and, with `#`, a heading of it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Kind, type OperationDefinitionNode, parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../events/sse-client.js";
import { SessionManager } from "../support/pi-oracle.js";
import { piAssistant, piUsage, piUser } from "../support/pi-sessions.js";
import { startTestServer, type TestServer } from "../support/server.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The README first (it creates `hello`), then the API guide (it creates `demo`), then the rest. */
const DOCS = [
	"README.md",
	"docs/api.md",
	...readdirSync(join(ROOT, "docs"))
		.filter((name) => name.endsWith(".md") && name !== "api.md")
		.sort()
		.map((name) => `docs/${name}`),
	"bench/README.md",
];

/** Shell blocks that do not run here, by their text: why, and what tests it instead. */
const NOT_RUN: Record<string, string> = {
	"npm install && npm start":
		"installs, then serves until stopped on port 4000; .ci/run installs, test/app/signals.test.ts runs `npm start`",
	"DATABASE_URL=postgres://user:pass@localhost:5432/sessions npm start":
		"needs the reader's database; every API suite runs the server on Postgres",
	"npm test": "the command running this test",
	[`curl -s http://127.0.0.1:4000/graphql -H 'content-type: application/json' -H "authorization: Bearer $ADMIN_TOKEN" \\
  -d '{"query":"mutation { deleteWorkspaceSessions(first: 100) { deleted remaining } }"}'`]:
		"deletes every session of the workspace the later examples read; test/store/delete.ts (every backend) and the isolation suite run it",
	"TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm test": "the command running this test",
	'npm run follow -- --url https://sessions.example.com --token "$TOKEN" ~/.pi/agent/sessions':
		"a service of the reader's; the README's follow command runs here against this file's server",
	"npm run follow -- ~/.pi/agent/sessions":
		"follows into this machine's store until stopped; test/follow/follower.test.ts follows into a local store",
	"AUTH_JWT_SECRET=$(openssl rand -hex 32) docker compose up\ndocker compose --profile embedded up api-embedded   # alone on PGlite, 127.0.0.1:4001":
		"no Docker engine here; test/app/containers.test.ts validates the compose file and runs the image's command",
	[`npm run bench          # store vs raw Postgres baselines, same server, same run
npm run bench -- --quick   # the same cases on a smaller plan, about 2.5 minutes
npm run bench:live     # subscription delivery latency with 100 subscribers
npm run bench:generic  # appends: ours, bare graphql-yoga with the raw transaction, and raw
npm run bench:follow   # live from pi: the follower, pi's write to a subscriber, lines lost, idle CPU`]:
		"minutes each; their figures are bench/README.md's",
};

/**
 * Shell blocks that serve until stopped: they run until the check holds (bounded), then are
 * stopped. The README's follower must have sent the home directory's pi session.
 */
const RUN_UNTIL: Record<string, (server: TestServer) => Promise<boolean>> = {
	"npm run follow -- --url http://127.0.0.1:4000 ~/.pi/agent/sessions": async (server) => {
		const answer = await server.request<{ session: { lastSeq: number } | null }>(
			"query ($id: String!) { session(sessionId: $id) { lastSeq } }",
			{ id: piSessionId },
		);
		return answer.data?.session?.lastSeq === 2;
	},
};

interface Block {
	doc: string;
	lang: string;
	text: string;
	line: number;
}

function blocksOf(doc: string): Block[] {
	const lines = readFileSync(join(ROOT, doc), "utf8").split("\n");
	const blocks: Block[] = [];
	for (let i = 0; i < lines.length; i++) {
		const open = /^```(\w*)\s*$/.exec(lines[i] as string);
		if (!open) continue;
		const start = i;
		const body: string[] = [];
		for (i++; i < lines.length && !(lines[i] as string).startsWith("```"); i++) body.push(lines[i] as string);
		blocks.push({ doc, lang: open[1] as string, text: body.join("\n").trim(), line: start + 1 });
	}
	return blocks;
}

let piSessionId = "";

describe("the docs' examples, run as written", () => {
	let server: TestServer;
	let home: string;
	let origin: string;
	let writes = 0;

	beforeAll(async () => {
		server = await startTestServer("memory");
		origin = new URL(server.url).origin;
		home = mkdtempSync(join(tmpdir(), "docs-home-"));
		// A pi session where pi keeps them, and one file downloaded elsewhere.
		const pi = SessionManager.create("/work/demo", join(home, ".pi/agent/sessions/--work-demo--"));
		pi.appendMessage(piUser("hello from pi"));
		pi.appendMessage(piAssistant("hi", piUsage(1, 2, 0, 0, 0.01)));
		piSessionId = pi.getSessionId();
		mkdirSync(join(home, "Downloads"));
		writeFileSync(join(home, "Downloads/session.jsonl"), readFileSync(pi.getSessionFile() as string));
	});
	afterAll(async () => {
		await server?.close();
		rmSync(home, { recursive: true, force: true });
	});

	/** A write the server's feeds report, to start a subscription that only sends what comes next. */
	const write = () =>
		server.request(
			'mutation ($id: String!) { appendEntry(input: { sessionId: "hello", entryId: $id, entry: { message: { role: "user", content: "more", timestamp: 1767225600000 } } }) { entry { seq } } }',
			{ id: `docs-${++writes}` },
		);

	async function runGraphQL(block: Block): Promise<void> {
		const document = parse(block.text);
		const operations = document.definitions.filter(
			(d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
		);
		for (const operation of operations) {
			const where = `${block.doc}:${block.line} ${operation.name?.value ?? operation.operation}`;
			const body = { query: block.text, operationName: operation.name?.value };
			if (operation.operation === "subscription") {
				const stream = connect(fetch, server.url, body);
				try {
					const first = stream.next(10_000);
					// Until the first event: some subscriptions send only what is written after them.
					const writing = (async () => {
						for (let i = 0; i < 40; i++) {
							if (await Promise.race([first.then(() => true), new Promise((r) => setTimeout(r, 250, false))]))
								return;
							await write();
						}
					})();
					const event = await first;
					await writing;
					expect(event.data.errors, where).toBeUndefined();
					expect(event.data.data, where).toBeTruthy();
				} finally {
					await stream.close();
				}
				continue;
			}
			const response = await fetch(server.url, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify(body),
			});
			const answer = (await response.json()) as { data?: unknown; errors?: unknown };
			expect(answer.errors, where).toBeUndefined();
			expect(answer.data, where).toBeTruthy();
		}
	}

	async function runShell(block: Block): Promise<void> {
		const where = `${block.doc}:${block.line}`;
		const port = await freePort();
		// A block that starts a server of its own talks to it; any other, to this file's server.
		const target = block.text.includes("npm start") ? `127.0.0.1:${port}` : new URL(origin).host;
		const script = block.text.replaceAll("127.0.0.1:4000", target);
		const env: NodeJS.ProcessEnv = {
			...process.env,
			HOME: home,
			DATABASE_URL: "memory:",
			PORT: String(port),
		};
		for (const name of ["NODE_ENV", "XDG_STATE_HOME", "SESSION_TREE_TOKEN", "AUTH_JWT_SECRET", "AUTH_MODE"])
			delete env[name];
		const child = spawn("bash", ["-euo", "pipefail", "-c", script], { cwd: ROOT, env, detached: true });
		let out = "";
		let err = "";
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
		// The script's own exit (a server it started in the background may hold its output open).
		const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
		const closed = new Promise<void>((done) => child.on("close", () => done()));
		try {
			const until = RUN_UNTIL[block.text];
			const streams = /curl -N\b/.test(block.text);
			if (until || streams) {
				const deadline = Date.now() + 30_000;
				let done = false;
				while (!done && Date.now() < deadline && child.exitCode === null) {
					done = until ? await until(server) : /^data:/m.test(out);
					if (!done) await Promise.race([exited, new Promise((r) => setTimeout(r, 100))]);
				}
				expect(done, `${where} did its work within 30 s; stderr: ${err}`).toBe(true);
				if (streams) expect(out, where).not.toContain('"errors"');
				return;
			}
			const code = await Promise.race([exited, new Promise<"late">((r) => setTimeout(r, 60_000, "late"))]);
			expect(code, `${where} exits 0; stdout: ${out} stderr: ${err}`).toBe(0);
			expect(out, where).not.toContain('"errors"');
		} finally {
			stopGroup(child);
			await closed;
		}
	}

	for (const doc of DOCS) {
		it(`${doc}: its GraphQL operations answer without errors and its shell commands run`, async () => {
			for (const block of blocksOf(doc)) {
				if (block.lang === "graphql") await runGraphQL(block);
				else if (block.lang === "sh" && !(block.text in NOT_RUN)) await runShell(block);
			}
		}, 180_000);
	}

	it("names every shell block it does not run, and nothing that is not in the docs", () => {
		const shown = new Set(
			DOCS.flatMap((doc) =>
				blocksOf(doc)
					.filter((b) => b.lang === "sh")
					.map((b) => b.text),
			),
		);
		for (const text of Object.keys(NOT_RUN))
			expect(shown, "a NOT_RUN block the docs no longer show").toContain(text);
		const languages = new Set(DOCS.flatMap((doc) => blocksOf(doc).map((b) => b.lang)));
		expect([...languages].sort()).toEqual(["", "graphql", "sh", "ts"]);
	});

	it("every relative link names a file, and with #, a heading of it", () => {
		const broken: string[] = [];
		for (const doc of DOCS) {
			const text = readFileSync(join(ROOT, doc), "utf8");
			for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
				if (/^\w+:/.test(target as string)) continue;
				const [path, anchor] = (target as string).split("#");
				const file = path ? resolve(ROOT, dirname(doc), path) : join(ROOT, doc);
				if (!existsSync(file)) broken.push(`${doc}: ${target} (no file)`);
				else if (anchor && !headingSlugs(readFileSync(file, "utf8")).has(anchor))
					broken.push(`${doc}: ${target} (no heading ${relative(ROOT, file)}#${anchor})`);
			}
		}
		expect(broken).toEqual([]);
	});
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
function headingSlugs(markdown: string): Set<string> {
	const slugs = new Set<string>();
	for (const [, heading] of markdown.matchAll(/^#{1,6} (.+)$/gm))
		slugs.add(
			(heading as string)
				.trim()
				.toLowerCase()
				.replace(/[^\p{L}\p{N}\s_-]/gu, "")
				.replace(/\s/g, "-"),
		);
	return slugs;
}

function stopGroup(child: ChildProcess): void {
	try {
		if (child.pid) process.kill(-child.pid, "SIGTERM");
	} catch {
		// the group has exited
	}
}

function freePort(): Promise<number> {
	return new Promise((done, fail) => {
		const probe = createServer();
		probe.once("error", fail);
		probe.listen(0, "127.0.0.1", () => {
			const { port } = probe.address() as { port: number };
			probe.close(() => done(port));
		});
	});
}

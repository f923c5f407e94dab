/**
 * Pure tree rules (src/session/tree.ts) and the context projection
 * (src/session/context.ts), the latter held against pi's own
 * `buildSessionContext` on handmade trees.
 */

import { describe, expect, it } from "vitest";
import { projectContext } from "../../src/session/context.js";
import type { Entry, SessionContext } from "../../src/session/entry.js";
import {
	boundByCompaction,
	childrenOf,
	labelsOf,
	pathToRoot,
	replayLeaf,
	sessionNameOf,
	tipsOf,
} from "../../src/session/tree.js";
import { buildSessionContext } from "../support/pi-oracle.js";

let clock = 0;
/** Each entry a second after the previous one. */
const at = () => new Date(Date.UTC(2026, 0, 5, 12, 0, clock++)).toISOString();

const user = (id: string, parentId: string | null, text = id): Entry => ({
	type: "message",
	id,
	parentId,
	timestamp: at(),
	message: { role: "user", content: text, timestamp: 1_767_614_400_000 + clock },
});
const assistant = (
	id: string,
	parentId: string | null,
	model = "claude-sonnet-4-5",
	provider = "anthropic",
): Entry => ({
	type: "message",
	id,
	parentId,
	timestamp: at(),
	message: {
		role: "assistant",
		content: [{ type: "text", text: id }],
		provider,
		model,
		stopReason: "stop",
		timestamp: 1_767_614_400_000 + clock,
	},
});
const leaf = (id: string, parentId: string | null, targetId: string | null): Entry => ({
	type: "leaf",
	id,
	parentId,
	timestamp: at(),
	targetId,
});
const compaction = (id: string, parentId: string, firstKeptEntryId?: string): Entry => ({
	type: "compaction",
	id,
	parentId,
	timestamp: at(),
	summary: `summary ${id}`,
	tokensBefore: 1000 + clock,
	...(firstKeptEntryId === undefined ? {} : { firstKeptEntryId }),
});
const label = (id: string, parentId: string | null, targetId: string, text?: string): Entry => ({
	type: "label",
	id,
	parentId,
	timestamp: at(),
	targetId,
	...(text === undefined ? {} : { label: text }),
});
const info = (id: string, parentId: string | null, name?: string): Entry => ({
	type: "session_info",
	id,
	parentId,
	timestamp: at(),
	...(name === undefined ? {} : { name }),
});

const rows = (entries: readonly Entry[]) => entries.map((entry) => ({ entry }));
const ids = (list: readonly { entry: Entry }[]) => list.map((e) => e.entry.id);
const index = (entries: readonly Entry[]) => {
	const byId = new Map(entries.map((entry) => [entry.id, { entry }]));
	return (id: string) => byId.get(id);
};

/** The seed example (design/tree-rules.md#the-seed-example): u1 ← a1 ← u2 ← a2, a move back to u1, then a3 under u1. */
const example = (): Entry[] => [
	user("u1", null),
	assistant("a1", "u1"),
	user("u2", "a1"),
	assistant("a2", "u2"),
	leaf("nav1", "a2", "u1"),
	assistant("a3", "u1"),
];

describe("replayLeaf", () => {
	it("follows ordinary entries and leaf records in log order", () => {
		const log = example();
		expect(replayLeaf(log)).toBe("a3");
		expect(replayLeaf(log.slice(0, 5))).toBe("u1");
		expect(replayLeaf(log.slice(0, 4))).toBe("a2");
	});

	it("is null for an empty log and after a move to null", () => {
		expect(replayLeaf([])).toBeNull();
		expect(replayLeaf([user("u1", null), leaf("n", "u1", null)])).toBeNull();
	});
});

describe("pathToRoot", () => {
	const lookup = index(example());

	it("walks parentId links from the start to the root, root first", () => {
		expect(ids(pathToRoot("a3", lookup))).toEqual(["u1", "a3"]);
		expect(ids(pathToRoot("a2", lookup))).toEqual(["u1", "a1", "u2", "a2"]);
		expect(ids(pathToRoot("u1", lookup))).toEqual(["u1"]);
	});

	it("is empty for a null or unknown start", () => {
		expect(pathToRoot(null, lookup)).toEqual([]);
		expect(pathToRoot("ghost", lookup)).toEqual([]);
	});
});

describe("boundByCompaction", () => {
	const bound = (entries: Entry[], from: string) => ids(boundByCompaction(pathToRoot(from, index(entries))));

	it("keeps the whole path without a compaction", () => {
		expect(bound(example(), "a2")).toEqual(["u1", "a1", "u2", "a2"]);
	});

	it("stops at the compaction's firstKeptEntryId, inclusive", () => {
		const log = [user("u1", null), assistant("a1", "u1"), user("u2", "a1"), assistant("a2", "u2")];
		log.push(compaction("c1", "a2", "u2"), user("u3", "c1"));
		expect(bound(log, "u3")).toEqual(["u2", "a2", "c1", "u3"]);
		// the compaction as the start of the walk
		expect(bound(log, "c1")).toEqual(["u2", "a2", "c1"]);
		// a start before the compaction does not see it
		expect(bound(log, "a2")).toEqual(["u1", "a1", "u2", "a2"]);
	});

	it("keeps the whole path when the compaction keeps nothing named", () => {
		const log = [user("u1", null), assistant("a1", "u1"), compaction("c1", "a1"), user("u2", "c1")];
		expect(bound(log, "u2")).toEqual(["u1", "a1", "c1", "u2"]);
	});

	it("keeps the whole path when firstKeptEntryId is on another branch", () => {
		const log = [user("u1", null), assistant("a1", "u1"), user("x1", "u1")];
		log.push(compaction("c1", "a1", "x1"), user("u2", "c1"));
		expect(bound(log, "u2")).toEqual(["u1", "a1", "c1", "u2"]);
	});

	it("a later compaction whose stop lies after an older one stops there", () => {
		const log = [user("u1", null), assistant("a1", "u1"), compaction("c1", "a1", "a1")];
		log.push(user("u2", "c1"), assistant("a2", "u2"), compaction("c2", "a2", "u2"), user("u3", "c2"));
		expect(bound(log, "u3")).toEqual(["u2", "a2", "c2", "u3"]);
	});

	it("every compaction met on the walk moves the stop (pi's getPathToRootOrCompaction)", () => {
		// c2 keeps from a1, which is older than c1; walking from u3 meets c1
		// before a1, and c1's stop (u1) replaces c2's.
		const log = [user("u0", null), user("u1", "u0"), assistant("a1", "u1"), compaction("c1", "a1", "u1")];
		log.push(user("u2", "c1"), compaction("c2", "u2", "a1"), user("u3", "c2"));
		expect(bound(log, "u3")).toEqual(["u1", "a1", "c1", "u2", "c2", "u3"]);
	});

	it("an older compaction still bounds the walk when the newest names nothing on the path", () => {
		const log = [user("u0", null), user("u1", "u0"), compaction("c1", "u1", "u1")];
		log.push(user("u2", "c1"), compaction("c2", "u2", "elsewhere"), user("u3", "c2"));
		expect(bound(log, "u3")).toEqual(["u1", "c1", "u2", "c2", "u3"]);
	});
});

describe("childrenOf and tipsOf", () => {
	it("list nodes only: a leaf record is neither a child nor a tip", () => {
		const log = rows(example());
		const children = childrenOf(log, ["u1", "a2"]);
		expect(ids(children.get("u1") ?? [])).toEqual(["a1", "a3"]);
		expect(children.get("a2")).toEqual([]);
		// a2 keeps being a tip although the leaf record nav1 hangs under it
		expect(ids(tipsOf(log))).toEqual(["a2", "a3"]);
	});

	it("count label and session_info entries as nodes", () => {
		const log = rows([user("u1", null), label("l1", "u1", "u1", "start"), info("s1", "u1", "n")]);
		expect(ids(childrenOf(log, ["u1"]).get("u1") ?? [])).toEqual(["l1", "s1"]);
		expect(ids(tipsOf(log))).toEqual(["l1", "s1"]);
	});

	it("give one tip per root of a forest, and none for an empty log", () => {
		const log = rows([user("u1", null), leaf("n", "u1", null), user("r2", null)]);
		expect(ids(tipsOf(log))).toEqual(["u1", "r2"]);
		expect(tipsOf([])).toEqual([]);
	});
});

describe("labelsOf", () => {
	it("takes the latest label entry per target; an empty or absent label clears", () => {
		const log = rows([
			user("u1", null),
			assistant("a1", "u1"),
			label("l1", "a1", "u1", "first"),
			label("l2", "l1", "a1", "answer"),
			label("l3", "l2", "u1", "renamed"),
			label("l4", "l3", "a1", ""),
		]);
		const labels = labelsOf(log);
		expect([...labels.keys()]).toEqual(["u1"]);
		expect(labels.get("u1")?.label).toBe("renamed");
		expect(labels.get("u1")?.id).toBe("l3");

		const cleared = labelsOf([...log, ...rows([label("l5", "l4", "u1")])]);
		expect(cleared.size).toBe(0);
		const again = labelsOf([...log, ...rows([label("l5", "l4", "u1"), label("l6", "l5", "u1", "back")])]);
		expect(again.get("u1")?.label).toBe("back");
	});

	it("is session-wide: labels on other branches count", () => {
		const log = rows([...example(), label("l1", "a3", "a2", "old branch")]);
		expect(labelsOf(log).get("a2")?.label).toBe("old branch");
	});
});

describe("sessionNameOf", () => {
	it("is the latest session_info name, trimmed; empty or absent means none", () => {
		expect(sessionNameOf(rows([user("u1", null)]))).toBeNull();
		expect(sessionNameOf(rows([info("s1", null, "  First  ")]))).toBe("First");
		expect(sessionNameOf(rows([info("s1", null, "First"), info("s2", "s1", "Second")]))).toBe("Second");
		expect(sessionNameOf(rows([info("s1", null, "First"), info("s2", "s1", "   ")]))).toBeNull();
		expect(sessionNameOf(rows([info("s1", null, "First"), info("s2", "s1")]))).toBeNull();
	});

	it("starts from the initial name, which a session_info replaces", () => {
		expect(sessionNameOf(rows([user("u1", null)]), "From header")).toBe("From header");
		expect(sessionNameOf(rows([info("s1", null, "Renamed")]), "From header")).toBe("Renamed");
		expect(sessionNameOf(rows([info("s1", null, "")]), "From header")).toBeNull();
	});
});

describe("projectContext against pi's buildSessionContext", () => {
	const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

	/** Our context of the path root → leafId, and pi's of the whole tree with that leaf. */
	function both(tree: Entry[], leafId: string | null) {
		const path = pathToRoot(leafId, index(tree)).map((e) => e.entry);
		const ours = projectContext(path);
		const nodes = tree.filter((e) => e.type !== "leaf");
		const pi = buildSessionContext(nodes as never, leafId);
		const { activeToolNames, ...comparable } = ours;
		return { ours, activeToolNames, comparable: asJson(comparable), pi: asJson(pi) };
	}

	/** A tree with every entry type and an abandoned branch. */
	function richTree(): Entry[] {
		return [
			user("u1", null),
			{ type: "thinking_level_change", id: "t1", parentId: "u1", timestamp: at(), thinkingLevel: "high" },
			assistant("a1", "t1"),
			{
				type: "active_tools_change",
				id: "tools1",
				parentId: "a1",
				timestamp: at(),
				activeToolNames: ["read"],
			},
			user("u2", "tools1"),
			assistant("a2", "u2", "claude-opus-4-5"),
			// abandoned: a model change and an answer that must not show
			{
				type: "model_change",
				id: "m-old",
				parentId: "a2",
				timestamp: at(),
				provider: "openai",
				modelId: "gpt-5",
			},
			assistant("a-old", "m-old", "gpt-5", "openai"),
			leaf("nav1", "a-old", "a2"),
			{
				type: "branch_summary",
				id: "bs1",
				parentId: "a2",
				timestamp: at(),
				fromId: "a2",
				summary: "Tried gpt-5, went back.",
				details: { files: ["x.ts"] },
			},
			{
				type: "branch_summary",
				id: "bs-empty",
				parentId: "bs1",
				timestamp: at(),
				fromId: "bs1",
				summary: "",
			},
			{
				type: "custom",
				id: "c1",
				parentId: "bs-empty",
				timestamp: at(),
				customType: "index",
				data: { n: 1 },
			},
			{
				type: "custom_message",
				id: "cm1",
				parentId: "c1",
				timestamp: at(),
				customType: "note",
				content: "a note",
				display: true,
				details: { ok: true },
			},
			{
				type: "custom_message",
				id: "cm2",
				parentId: "cm1",
				timestamp: at(),
				customType: "hidden",
				content: [{ type: "text", text: "quiet" }],
				display: false,
			},
			label("l1", "cm2", "u1", "start"),
			info("s1", "l1", "named"),
			{
				type: "model_change",
				id: "m2",
				parentId: "s1",
				timestamp: at(),
				provider: "openai",
				modelId: "gpt-5.1",
			},
			{
				type: "active_tools_change",
				id: "tools2",
				parentId: "m2",
				timestamp: at(),
				activeToolNames: ["read", "bash"],
			},
			user("u3", "tools2"),
		];
	}

	it("projects every entry type as pi does, following only the active branch", () => {
		const tree = richTree();
		const { ours, comparable, pi, activeToolNames } = both(tree, "u3");
		expect(comparable).toEqual(pi);
		expect(ours.thinkingLevel).toBe("high");
		expect(ours.model).toEqual({ provider: "openai", modelId: "gpt-5.1" });
		expect(activeToolNames).toEqual(["read", "bash"]);
		expect(ours.messages.map((m) => m.role)).toEqual([
			"user",
			"assistant",
			"user",
			"assistant",
			"branchSummary",
			"custom",
			"custom",
			"user",
		]);
		const bs1 = tree.find((e) => e.id === "bs1") as Entry;
		expect(ours.messages[4]).toEqual({
			role: "branchSummary",
			summary: "Tried gpt-5, went back.",
			fromId: "a2",
			timestamp: Date.parse(bs1.timestamp),
		});
		expect(ours.messages[5]).toMatchObject({ role: "custom", customType: "note", display: true });
		expect(typeof ours.messages[5]?.timestamp).toBe("number");
	});

	it("agrees with pi from a leaf on the abandoned branch and mid-path", () => {
		const tree = richTree();
		for (const leafId of ["a-old", "m-old", "a2", "tools1", "u1", "cm2"]) {
			const { comparable, pi } = both(tree, leafId);
			expect(comparable, leafId).toEqual(pi);
		}
		expect(both(tree, "a-old").ours.model).toEqual({ provider: "openai", modelId: "gpt-5" });
		expect(both(tree, "tools1").activeToolNames).toEqual(["read"]);
		expect(both(tree, "u1").activeToolNames).toBeNull();
	});

	it("a null leaf gives the empty context", () => {
		const { ours, pi } = both(richTree(), null);
		expect(ours).toEqual({ messages: [], thinkingLevel: "off", model: null, activeToolNames: null });
		expect(asJson({ messages: ours.messages, thinkingLevel: ours.thinkingLevel, model: ours.model })).toEqual(
			pi,
		);
	});

	it("starts with the latest compaction's summary, then the kept entries and what follows", () => {
		const tree = [
			user("u1", null),
			{ type: "thinking_level_change", id: "t1", parentId: "u1", timestamp: at(), thinkingLevel: "low" },
			assistant("a1", "t1"),
			user("u2", "a1"),
			assistant("a2", "u2"),
			compaction("c1", "a2", "u2"),
			user("u3", "c1"),
			assistant("a3", "u3"),
			compaction("c2", "a3", "u3"),
			user("u4", "c2"),
		] as Entry[];
		const { ours, comparable, pi } = both(tree, "u4");
		expect(comparable).toEqual(pi);
		const c2 = tree[8] as Extract<Entry, { type: "compaction" }>;
		expect(ours.messages[0]).toEqual({
			role: "compactionSummary",
			summary: "summary c2",
			tokensBefore: c2.tokensBefore,
			timestamp: Date.parse(c2.timestamp),
		});
		expect(ours.messages.slice(1).map((m) => m.content)).toEqual([
			"u3",
			[{ type: "text", text: "a3" }],
			"u4",
		]);
		// a setting from before both compactions survives
		expect(ours.thinkingLevel).toBe("low");

		// from between the compactions, c1 is the latest
		const mid = both(tree, "a3");
		expect(mid.comparable).toEqual(mid.pi);
		expect(mid.ours.messages.map((m) => m.role)).toEqual([
			"compactionSummary",
			"user",
			"assistant",
			"user",
			"assistant",
		]);
	});

	it("a compaction without firstKeptEntryId keeps nothing before it, as pi does", () => {
		const tree = [user("u1", null), assistant("a1", "u1"), compaction("c1", "a1"), user("u2", "c1")];
		const { ours, comparable, pi } = both(tree, "u2");
		expect(comparable).toEqual(pi);
		expect(ours.messages.map((m) => m.role)).toEqual(["compactionSummary", "user"]);
		expect(ours.model).toEqual({ provider: "anthropic", modelId: "claude-sonnet-4-5" });
	});

	it("a custom entry contributes only through a registered projector", () => {
		const tree: Entry[] = [
			user("u1", null),
			{ type: "custom", id: "c1", parentId: "u1", timestamp: at(), customType: "todo", data: { items: 2 } },
			{ type: "custom", id: "c2", parentId: "c1", timestamp: at(), customType: "other", data: 1 },
		];
		expect(projectContext(tree).messages).toHaveLength(1);
		const withProjector = projectContext(tree, {
			customProjectors: {
				todo: (entry) => [{ role: "user", content: `todo: ${JSON.stringify(entry.data)}` }],
			},
		});
		expect(withProjector.messages).toEqual([
			(tree[0] as Extract<Entry, { type: "message" }>).message,
			{ role: "user", content: 'todo: {"items":2}' },
		]);
	});

	it("returns settings not shared with the entries it was given", () => {
		const tree: Entry[] = [
			{ type: "active_tools_change", id: "t", parentId: null, timestamp: at(), activeToolNames: ["read"] },
		];
		const context: SessionContext = projectContext(tree);
		context.activeToolNames?.push("bash");
		expect((tree[0] as Extract<Entry, { type: "active_tools_change" }>).activeToolNames).toEqual(["read"]);
	});
});

/**
 * `continueSession`: the rest of a pi file, from a follower beside a running
 * pi (npm run follow). The rules are store/continuation.ts's.
 */
import type { ContinuedSession } from "../../store/store.js";
import { builder } from "../builder.js";
import { SessionRef } from "../refs.js";

const ContinueSessionInput = builder.inputType("ContinueSessionInput", {
	fields: (t) => ({
		jsonl: t.string({
			required: true,
			description:
				"The session's pi file whole (its header line first; a session the workspace lacks is imported), or the lines after `afterEntryId` (no header).",
		}),
		sessionId: t.string({ description: "Overrides a whole file's header id; required with lines." }),
		afterEntryId: t.string({
			description:
				"With lines: the id of the file's entry they follow, or null for its first lines. The session must hold it (else NOT_FOUND: send more of the file).",
		}),
	}),
});

const ContinueSessionPayloadRef = builder.objectRef<ContinuedSession>("ContinueSessionPayload").implement({
	fields: (t) => ({
		session: t.field({ type: SessionRef, resolve: (continued) => continued }),
		created: t.exposeBoolean("created", { description: "The session was new: the whole file was imported." }),
		appended: t.exposeInt("appended", { description: "Lines stored now." }),
		held: t.exposeInt("held", {
			description: "Lines the session held already: a repeat changes nothing, so a follower may resend.",
		}),
	}),
});

builder.mutationField("continueSession", (t) =>
	t.field({
		type: ContinueSessionPayloadRef,
		description:
			"Store what a session lacks of its pi file, when what it holds is where the file starts: pi's moves back become leaf records, live subscribers see each new entry. A file that no longer matches the session is ALREADY_EXISTS naming its first differing line; nothing is written then.",
		complexity: 100,
		args: { input: t.arg({ type: ContinueSessionInput, required: true }) },
		resolve: (_, { input }, { store, workspaceId, identity }) =>
			store.continueSession(
				workspaceId,
				{
					jsonl: input.jsonl,
					...(input.sessionId == null ? {} : { sessionId: input.sessionId }),
					// An explicit null means "from the first line"; absent is absent.
					...(input.afterEntryId === undefined ? {} : { afterEntryId: input.afterEntryId }),
				},
				{ author: identity.subject },
			),
	}),
);

/** The model context of a path, as pi's buildSessionContext returns it. */
import type { SessionContext } from "../../session/entry.js";
import { builder } from "../builder.js";
import { SessionContextRef } from "../refs.js";

const ModelRefType = builder.objectRef<{ provider: string; modelId: string }>("ModelRef").implement({
	fields: (t) => ({ provider: t.exposeString("provider"), modelId: t.exposeString("modelId") }),
});

/** pi copies an assistant message's provider/model even when absent; GraphQL says null then. */
function modelOf(context: SessionContext) {
	const model = context.model;
	return model && typeof model.provider === "string" && typeof model.modelId === "string" ? model : null;
}

SessionContextRef.implement({
	fields: (t) => ({
		messages: t.field({
			type: ["JSON"],
			description: "AgentMessage[] exactly as pi's buildSessionContext returns them.",
			// The context field's own cost covers the path walk; the messages are JSON values that
			// resolve nothing further, bounded by the response limit.
			complexity: { field: 1, multiplier: 1 },
			resolve: (c) => c.messages,
		}),
		thinkingLevel: t.exposeString("thinkingLevel"),
		model: t.field({ type: ModelRefType, nullable: true, resolve: modelOf }),
		activeToolNames: t.stringList({ nullable: true, resolve: (c) => c.activeToolNames }),
	}),
});

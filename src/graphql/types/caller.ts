/** `me`: who the caller is to the service (its token's subject, workspace and scopes). */
import { SCOPES } from "../../auth/identity.js";
import { builder } from "../builder.js";

interface Caller {
	subject: string | null;
	workspaceId: string;
	scopes: string[];
}

const CallerRef = builder.objectRef<Caller>("Caller").implement({
	description:
		"The caller: what its token says (without authentication, the default workspace with every scope).",
	fields: (t) => ({
		subject: t.exposeString("subject", {
			nullable: true,
			description: "The token's subject; null without authentication.",
		}),
		workspaceId: t.exposeString("workspaceId", {
			description: "The workspace every call of this caller is in.",
		}),
		scopes: t.exposeStringList("scopes", { description: "What the token allows: read, write." }),
	}),
});

builder.queryField("me", (t) =>
	t.field({
		type: CallerRef,
		description: "Who the caller is: a client checks its token's workspace and scopes before it writes.",
		resolve: (_, __, { identity, workspaceId }) => ({
			subject: identity.subject,
			workspaceId,
			scopes: SCOPES.filter((scope) => identity.scopes.has(scope)),
		}),
	}),
);

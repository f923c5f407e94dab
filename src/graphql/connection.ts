/**
 * Relay cursor connections (the Cursor Connections Specification): PageInfo,
 * and for a node type X the XEdge and XConnection object types. Paging itself
 * (arguments, cursors, page flags) is the store's: store/paging.ts.
 */
import type { OutputRef } from "@pothos/core";
import { builder } from "./builder.js";

export interface PageInfoShape {
	hasNextPage: boolean;
	hasPreviousPage: boolean;
	startCursor: string | null;
	endCursor: string | null;
}

export interface Edge<T> {
	cursor: string;
	node: T;
}

export interface Connection<T> {
	edges: Edge<T>[];
	pageInfo: PageInfoShape;
	totalCount: number;
}

export const PageInfoRef = builder.objectRef<PageInfoShape>("PageInfo").implement({
	fields: (t) => ({
		hasNextPage: t.exposeBoolean("hasNextPage"),
		hasPreviousPage: t.exposeBoolean("hasPreviousPage"),
		startCursor: t.exposeString("startCursor", { nullable: true }),
		endCursor: t.exposeString("endCursor", { nullable: true }),
	}),
});

/**
 * `${name}Edge` and `${name}Connection` over nodes of `nodeRef`. The field that
 * returns the connection sets the cost: it multiplies its selection by the page
 * size, so `edges` itself costs nothing more.
 */
export function connectionType<T>(name: string, nodeRef: OutputRef<T>) {
	const EdgeRef = builder.objectRef<Edge<T>>(`${name}Edge`).implement({
		fields: (t) => ({
			cursor: t.exposeString("cursor"),
			// Sound: nodeRef's shape is T. Pothos cannot resolve its result type for a generic T.
			node: t.field({ type: nodeRef, resolve: (edge) => edge.node as never }),
		}),
	});
	return builder.objectRef<Connection<T>>(`${name}Connection`).implement({
		fields: (t) => ({
			edges: t.field({
				type: [EdgeRef],
				complexity: { field: 0, multiplier: 1 },
				resolve: (c) => c.edges,
			}),
			pageInfo: t.field({ type: PageInfoRef, resolve: (c) => c.pageInfo }),
			totalCount: t.exposeInt("totalCount"),
		}),
	});
}

/** A connection from a page of the store (see store/paging.ts). */
export function connection<T>(
	page: { items: Edge<T>[]; hasNextPage: boolean; hasPreviousPage: boolean },
	totalCount: number,
): Connection<T> {
	const { items: edges } = page;
	return {
		edges,
		totalCount,
		pageInfo: {
			hasNextPage: page.hasNextPage,
			hasPreviousPage: page.hasPreviousPage,
			startCursor: edges[0]?.cursor ?? null,
			endCursor: edges[edges.length - 1]?.cursor ?? null,
		},
	};
}

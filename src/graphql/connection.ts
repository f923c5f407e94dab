/**
 * Relay cursor connections (the Cursor Connections Specification) through
 * @pothos/plugin-relay: its PageInfo, and for a node type X its XEdge and
 * XConnection object types (`builder.connectionObject`), each with a
 * `totalCount` where counting is cheap. Paging itself (arguments, keyset
 * cursors, page flags) is the store's: store/paging.ts.
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

/**
 * `${name}Edge` and `${name}Connection` over nodes of `nodeRef`, the
 * connection with `totalCount` unless `counted` is false (a search would
 * cost itself again to count). The field that returns the connection sets
 * the cost: it multiplies its selection by the page size, so `edges` itself
 * costs nothing more (../builder.ts edgesFieldOptions).
 */
export function connectionType<T>(name: string, nodeRef: OutputRef<T>, counted = true) {
	return builder.connectionObject(
		{
			type: nodeRef,
			name: `${name}Connection`,
			fields: (t) =>
				counted ? { totalCount: t.int({ resolve: (c) => (c as unknown as Connection<T>).totalCount }) } : {},
		},
		{ name: `${name}Edge` },
	);
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

/**
 * The list items one operation may resolve. The static cost check (see
 * app/operation-limits.ts) must guess list lengths; this counts the real ones,
 * so a query that is cheap on paper but explodes on the data (children →
 * parent → children on a star of 1,000 entries) stops with LIMIT_EXCEEDED
 * long before it holds gigabytes.
 */
import { SessionError } from "../session/errors.js";

export interface ResultBudget {
	readonly limit: number;
	remaining: number;
	/** Set once the budget ran out: the whole operation then fails with `budgetError`. */
	exceeded: boolean;
}

export function resultBudget(limit: number): ResultBudget {
	return { limit, remaining: limit, exceeded: false };
}

/** Start the budget over (each event of a subscription has its own). */
export function resetBudget(budget: ResultBudget): void {
	budget.remaining = budget.limit;
	budget.exceeded = false;
}

/**
 * Count `items` against the operation's budget. Once it is spent, every list
 * resolves empty, so execution winds down at once (throwing instead would
 * cost an error object per remaining field: 100,000 of them on a star), and
 * the app replaces the operation's result with `budgetError` (one error, no data).
 */
export function spend<T>(budget: ResultBudget, items: readonly T[]): T[] {
	budget.remaining -= items.length;
	if (budget.remaining < 0) budget.exceeded = true;
	return budget.exceeded ? [] : (items as T[]);
}

export function budgetError(budget: ResultBudget): SessionError {
	return new SessionError(
		"LIMIT_EXCEEDED",
		`The operation resolves more than ${budget.limit} list items (result items limit; the server's MAX_RESULT_ITEMS): page with first/after, or select fewer nested lists`,
	);
}

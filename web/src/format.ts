/** Cost in the provider's currency unit (USD for pi's built-in models); "–" when unknown. */
export function formatCost(cost: number | undefined | null): string {
	if (cost === undefined || cost === null) return "–";
	return `$${cost.toFixed(cost >= 100 ? 0 : 2)}`;
}

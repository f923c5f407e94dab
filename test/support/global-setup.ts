/**
 * Global setup of `npm test`, once per run before any test file: the Postgres
 * server (postgres-server.ts) and the migrated PGlite directory that test
 * directories are copied from (pglite-directories.ts), made side by side.
 */
import type { TestProject } from "vitest/node";
import { createPgliteTemplate } from "./pglite-directories.js";
import { providePostgresServer } from "./postgres-server.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
	const [server, template] = await Promise.allSettled([
		providePostgresServer(project),
		createPgliteTemplate(),
	]);
	const teardown = async () => {
		if (template.status === "fulfilled") template.value.remove();
		if (server.status === "fulfilled") await server.value?.();
	};
	for (const outcome of [server, template]) {
		if (outcome.status === "rejected") {
			await teardown();
			throw outcome.reason;
		}
	}
	if (template.status === "fulfilled") project.provide("pgliteTemplate", template.value.dir);
	return teardown;
}

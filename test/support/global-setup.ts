/**
 * Global setup of `npm test`, once per run before any test file: the Postgres
 * server (postgres-server.ts) with the migrated database that test databases
 * are copied from (databases.ts), and beside them the PGlite directories
 * that test directories are copied from (pglite-directories.ts).
 */
import type { TestProject } from "vitest/node";
import { createPostgresTemplate } from "./databases.js";
import { createPgliteTemplates } from "./pglite-directories.js";
import { providePostgresServer } from "./postgres-server.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
	const undo: Array<() => Promise<void> | void> = [];
	const teardown = async () => {
		for (const step of undo.splice(0).reverse()) await step();
	};
	const postgres = async () => {
		const server = await providePostgresServer(project);
		if (server.stop) undo.push(server.stop);
		const template = await createPostgresTemplate(server.url);
		undo.push(() => template.drop());
		project.provide("postgresTemplate", template.name);
	};
	const pglite = async () => {
		const templates = await createPgliteTemplates();
		undo.push(() => templates.remove());
		project.provide("pgliteTemplate", templates.migrated);
		project.provide("pgliteEmptyTemplate", templates.empty);
	};
	const outcomes = await Promise.allSettled([postgres(), pglite()]);
	for (const outcome of outcomes) {
		if (outcome.status === "rejected") {
			await teardown();
			throw outcome.reason;
		}
	}
	return teardown;
}

/**
 * `npm run schema:print` writes schema.graphql; `npm run schema:check` fails
 * when the committed file is stale or the served schema breaks the contract.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { contractBreaks, printedSchema, SCHEMA_PATH } from "../src/graphql/contract.js";

const mode = process.argv[2];
const printed = printedSchema();

if (mode === "print") {
	writeFileSync(SCHEMA_PATH, printed);
	process.stdout.write(`wrote ${SCHEMA_PATH.pathname}\n`);
} else if (mode === "check") {
	let failed = false;
	const breaks = contractBreaks();
	for (const change of breaks)
		process.stderr.write(`contract broken: ${change.type}: ${change.description}\n`);
	failed ||= breaks.length > 0;
	let committed = "";
	try {
		committed = readFileSync(SCHEMA_PATH, "utf8");
	} catch {}
	if (committed !== printed) {
		process.stderr.write("schema.graphql is stale: run `npm run schema:print` and commit it\n");
		failed = true;
	}
	if (failed) process.exit(1);
	process.stdout.write("schema.graphql is current and the contract holds\n");
} else {
	process.stderr.write("usage: tsx scripts/schema.ts print|check\n");
	process.exit(2);
}

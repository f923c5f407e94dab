import { describe } from "vitest";
import { postgresBackend } from "./backends.js";
import { conformanceSuite } from "./conformance.js";

describe("SessionStore conformance: postgres", () => {
	conformanceSuite(postgresBackend);
});

// Tree writes fall back to the row lock after losing races (src/store/postgres/writes.ts): the same answers there.
// Rollups are folded 100 ms after writes (src/store/postgres/analytics/fold.ts), so metrics read folded rows too.
describe("SessionStore conformance: postgres, every tree write under the row lock, rollups folded soon", () => {
	conformanceSuite(() => postgresBackend({ optimisticAttempts: 0, foldDelayMs: 100 }));
});

import { describe } from "vitest";
import { postgresBackend } from "./backends.js";
import { conformanceSuite } from "./conformance.js";

describe("SessionStore conformance: postgres", () => {
	conformanceSuite(postgresBackend);
});

// Tree writes fall back to the row lock after losing races (src/store/postgres/writes.ts): the same answers there.
describe("SessionStore conformance: postgres, every tree write under the row lock", () => {
	conformanceSuite(() => postgresBackend({ optimisticAttempts: 0 }));
});

import { describe } from "vitest";
import { pgliteBackend } from "./backends.js";
import { conformanceSuite } from "./conformance.js";

describe("SessionStore conformance: pglite", () => {
	conformanceSuite(pgliteBackend);
});

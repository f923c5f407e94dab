import { describe } from "vitest";
import { postgresBackend } from "./backends.js";
import { conformanceSuite } from "./conformance.js";

describe("SessionStore conformance: postgres", () => {
	conformanceSuite(postgresBackend);
});

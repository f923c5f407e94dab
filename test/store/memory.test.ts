import { describe } from "vitest";
import { memoryBackend } from "./backends.js";
import { conformanceSuite } from "./conformance.js";

describe("SessionStore conformance: memory", () => {
	conformanceSuite(memoryBackend);
});

import { describe } from "vitest";
import { isolationSuite } from "./isolation-suite.js";

describe("workspace isolation and authentication: pglite", () => {
	isolationSuite("pglite");
});

import { describe } from "vitest";
import { isolationSuite } from "./isolation-suite.js";

describe("workspace isolation and authentication: postgres", () => {
	isolationSuite("postgres");
});

import { describe } from "vitest";
import { hardeningSuite } from "./hardening-suite.js";

describe("hardening against hostile and careless requests: pglite", () => {
	hardeningSuite("pglite");
});

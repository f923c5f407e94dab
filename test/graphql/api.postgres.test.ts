import { describe } from "vitest";
import { apiSuite } from "./api-suite.js";

describe("GraphQL API over HTTP: postgres", () => {
	apiSuite("postgres");
});

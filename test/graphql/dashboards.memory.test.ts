import { describe } from "vitest";
import { dashboardsSuite } from "./dashboards-suite.js";

describe("Dashboards over HTTP: memory", () => {
	dashboardsSuite("memory");
});

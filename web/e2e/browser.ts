/**
 * Chromium for the browser tests (test/web), driven by playwright-core, a
 * dependency of web/ (installed by `npm --prefix web ci`): Debian's
 * `chromium` package, never a browser download. Launched headless with
 * everything that would reach the network off, or it stalls on a closed
 * network; Playwright gives it a fresh profile directory each launch.
 */
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { type Browser, chromium } from "playwright-core";

export type { Browser, BrowserContext, Locator, Page, WebSocketRoute } from "playwright-core";

const CANDIDATES = ["chromium", "chromium-browser", "google-chrome"];

/** The Chromium to drive: $CHROMIUM_PATH, else the first on PATH; undefined when there is none. */
export function findChromium(): string | undefined {
	const configured = process.env.CHROMIUM_PATH;
	if (configured) return existsSync(configured) ? configured : undefined;
	for (const dir of (process.env.PATH ?? "").split(delimiter)) {
		for (const name of CANDIDATES) {
			const path = join(dir, name);
			if (dir && existsSync(path)) return path;
		}
	}
	return undefined;
}

export const CHROMIUM_ARGS = [
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--disable-dev-shm-usage",
];

export async function launchChromium(executablePath: string): Promise<Browser> {
	return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 20_000 });
}

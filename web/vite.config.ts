/**
 * The browser app, built into dist/ and served by the service at `/`
 * (src/app/web-app.ts). Everything is bundled: the page loads nothing from
 * another host. In development (`npm run dev`) Vite proxies the API to a
 * service on 127.0.0.1:4000.
 */
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
	plugins: [react()],
	build: {
		outDir: "dist",
		emptyOutDir: true,
		// Hashed file names under assets/ may be cached for ever; index.html never is.
		assetsDir: "assets",
		sourcemap: true,
		chunkSizeWarningLimit: 1500,
	},
	server: {
		proxy: {
			"/graphql": { target: "http://127.0.0.1:4000", ws: true, changeOrigin: false },
		},
	},
});

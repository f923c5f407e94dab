/**
 * Types for every operation of the app, generated from the service's schema
 * (../schema.graphql, which `npm run schema:print` keeps current). The
 * output is committed; `npm run codegen:check` regenerates it elsewhere and
 * fails when it differs, so the app cannot drift from the schema.
 */
import type { CodegenConfig } from "@graphql-codegen/cli";

const outDir = process.env.CODEGEN_OUT_DIR ?? "src/gql/";

const config: CodegenConfig = {
	schema: "../schema.graphql",
	documents: ["src/**/*.{ts,tsx}", "!src/gql/**"],
	ignoreNoDocuments: false,
	generates: {
		[outDir.endsWith("/") ? outDir : `${outDir}/`]: {
			preset: "client",
			presetConfig: { fragmentMasking: false },
			config: {
				useTypeImports: true,
				enumsAsTypes: true,
				avoidOptionals: false,
				scalars: { DateTime: "string", JSON: "unknown" },
			},
		},
	},
};

export default config;

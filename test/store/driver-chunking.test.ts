/**
 * postgres.js is patched to read a message split across socket chunks from
 * its own bytes and the rest of each chunk in place (patches/; 3.4.9 copied
 * every chunk that completed a split message). Here the driver reads a real
 * server through a socket that hands the bytes on in chunks of every awkward
 * size (1 to 4 bytes, splitting a message's 5-byte header; a few bytes more
 * or less than a message; 64 KiB), and every answer must be the server's,
 * byte for byte: many rows, one field larger than many chunks, an error
 * between two results, and json and varchar columns passed as their bytes (json-text.ts).
 */
import { connect } from "node:net";
import { Duplex } from "node:stream";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonBytes, jsonTextParsers } from "../../src/store/postgres/json-text.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";

/** Chunk sizes, in turn: every size around a header and a small row, and large ones. */
const SIZES = [1, 2, 3, 4, 5, 6, 7, 9, 13, 31, 64, 100, 127, 1_000, 4_093, 65_536];

/** A connected socket to `url`'s server whose incoming bytes are handed on in chunks of SIZES. */
function rechunked(url: string, counted: { headerSplits: number }): () => Promise<Duplex> {
	const { hostname, port } = new URL(url);
	return async () => {
		const real = connect(Number(port || 5432), hostname);
		await new Promise<void>((resolve, reject) => {
			real.once("connect", resolve);
			real.once("error", reject);
		});
		let turn = 0;
		const socket = new Duplex({
			read() {},
			write(chunk, _encoding, done) {
				real.write(chunk, done);
			},
			final(done) {
				real.end();
				done();
			},
			destroy(error, done) {
				real.destroy();
				done(error);
			},
		});
		real.on("data", (bytes: Buffer) => {
			for (let from = 0; from < bytes.length; ) {
				const size = SIZES[turn++ % SIZES.length] as number;
				socket.push(bytes.subarray(from, from + size));
				if (size < 5) counted.headerSplits++;
				from += size;
			}
		});
		real.on("end", () => socket.push(null));
		real.on("error", (error) => socket.destroy(error));
		return socket;
	};
}

describe("postgres.js (patched) reads whole messages whatever the socket's chunks", () => {
	let database: TestDatabase;
	let sql: postgres.Sql;
	const counted = { headerSplits: 0 };

	beforeAll(async () => {
		database = await createTestDatabase();
		// `socket` (a connected socket of the caller's) is an option postgres.js reads but does not declare.
		sql = postgres(database.url, {
			max: 1,
			fetch_types: false,
			onnotice: () => {},
			socket: rechunked(database.url, counted),
		} as postgres.Options<Record<string, postgres.PostgresType>>);
		Object.assign(sql.options.parsers, jsonTextParsers(jsonBytes));
	});
	afterAll(async () => {
		await sql?.end({ timeout: 1 });
		await database?.drop();
	});

	it("answers as the server sent it: 5,000 rows of every length, a 3 MB field, an error between results", async () => {
		const rows = await sql<{ n: number; text: string; doc: Uint8Array; stored: Uint8Array }[]>`
			select g as n, repeat(chr(97 + g % 26), g % 300) as text,
				json_build_object('n', g, 'pad', repeat('é', g % 50)) as doc,
				jsonb_build_object('n', g)::text::varchar as stored
			from generate_series(1, 5000) as g order by g`;
		expect(rows).toHaveLength(5_000);
		for (const [i, row] of rows.entries()) {
			const n = i + 1;
			expect(row.n).toBe(n);
			expect(row.text).toBe(String.fromCharCode(97 + (n % 26)).repeat(n % 300));
			expect(JSON.parse(Buffer.from(row.doc).toString("utf8"))).toEqual({ n, pad: "é".repeat(n % 50) });
			expect(Buffer.from(row.stored).toString("utf8")).toBe(`{"n": ${n}}`);
		}

		await expect(sql`select 1 / (select 0) as x`).rejects.toMatchObject({ code: "22012" });

		const [large] = await sql<{ text: string }[]>`select repeat('0123456789abcdef', 196608) as text`;
		expect(large?.text).toHaveLength(3_145_728);
		expect(large?.text).toBe("0123456789abcdef".repeat(196_608));

		const [after] = await sql<{ ok: number }[]>`select 42 as ok`;
		expect(after?.ok).toBe(42);
		// Else the case proves nothing: many chunks were shorter than a message's header.
		expect(counted.headerSplits).toBeGreaterThan(100);
	}, 60_000);
});

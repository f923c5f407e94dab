import { describe, expect, it } from "vitest";
import { RawJson, rawObject, stringifyWithRaw } from "../../src/session/raw-json.js";

describe("stored JSON text passed on as it stands", () => {
	it("is written into the encoding verbatim, the rest encoded as JSON.stringify does", () => {
		const stored = '{"content": [{"text": "a \\"quoted\\" é", "type": "text"}], "role": "user"}';
		const value = { data: { messages: [new RawJson(stored), { role: "custom" }, new RawJson("[1, 2]")] } };
		const text = stringifyWithRaw(value);
		expect(text).toBe(`{"data":{"messages":[${stored},{"role":"custom"},[1, 2]]}}`);
		expect(JSON.parse(text)).toEqual({
			data: { messages: [JSON.parse(stored), { role: "custom" }, [1, 2]] },
		});
	});

	it("gives every other encoder the parsed value, and its readable fields are not encoded", () => {
		const message = rawObject('{"role": "assistant", "content": []}', { role: "assistant", provider: "p" });
		expect(message.role).toBe("assistant");
		expect(JSON.stringify({ m: message })).toBe('{"m":{"role":"assistant","content":[]}}');
		expect(stringifyWithRaw({ m: message })).toBe('{"m":{"role": "assistant", "content": []}}');
	});

	it("encodes without marks when a client's string looks like one, before or after the real one", () => {
		// A mark can only be seen from inside an encoding; a client that somehow sent one gains nothing.
		let mark = "";
		stringifyWithRaw({
			spy: {
				toJSON: () => {
					// The first call, while marks are handed out; a mark that never appears is encoded again without.
					mark ||= new RawJson("0").toJSON() as string;
					return null;
				},
			},
		});
		expect(mark).toMatch(/^raw-json:[0-9a-f]{24}$/);
		for (const value of [
			{ client: mark, stored: new RawJson('{"x": 1}') },
			{ stored: new RawJson('{"x": 1}'), client: mark },
		]) {
			expect(JSON.parse(stringifyWithRaw(value))).toEqual({ client: mark, stored: { x: 1 } });
		}
	});

	it("leaves a value without stored text to JSON.stringify", () => {
		const value = { a: [1, "two", { three: null }], b: undefined };
		expect(stringifyWithRaw(value)).toBe(JSON.stringify(value));
	});
});

/**
 * JSON text passed on as storage returned it. A model context's messages are
 * only ever sent to the client: parsing each stored message into objects and
 * encoding the objects again was most of a context read's time (and most of
 * its garbage). A RawJson holds the text; `stringifyWithRaw` writes it into
 * the encoding as it stands. Anything else that encodes it (JSON.stringify,
 * a transport's own encoder) gets the parsed value from `toJSON`, so a
 * RawJson is never encoded wrongly, only more slowly.
 *
 * Node 21 has `JSON.rawJSON` for this; Node 20 does not, so `toJSON` returns
 * a mark while `stringifyWithRaw` runs, and the marks are replaced by the
 * texts afterwards, in the order they were handed out (JSON.stringify writes
 * values in the order it calls their toJSON). A mark is a random nonce of
 * this process, so no client string can be mistaken for one; as many marks
 * must be found as were handed out, or the value is encoded again without
 * them. The mark is one string for every text: a 10,000-message context
 * hands out 10,000, and a numbered mark each (made, written, then found and
 * checked one by one) cost about a tenth of such a request's server CPU.
 *
 * The text may be its UTF-8 bytes (JsonText) as the database's socket
 * delivered them: a 10,000-message context is 9 MB of text, and as strings
 * it cost the server a decode, a re-encode, and the garbage collector's
 * copies of 9 MB still alive mid-request (server CPU 155 → 113 ms per such
 * request with bytes).
 *
 * Invariant: the text is valid JSON (storage wrote it from a validated value
 * and returns it as jsonb renders it), so splicing it in keeps the whole
 * encoding valid JSON, nested no deeper than the input limits allow.
 */
import { randomBytes } from "node:crypto";

/** JSON text: a string, or its UTF-8 bytes. */
export type JsonText = string | Uint8Array;

const utf8 = new TextDecoder();

/** `text` as a string (bytes decoded). */
export function jsonTextString(text: JsonText): string {
	return typeof text === "string" ? text : utf8.decode(text);
}

/** Parts of JSON text (stringifyToParts) joined into one string. */
export function joinJsonText(parts: readonly JsonText[]): string {
	return parts.map(jsonTextString).join("");
}

/** The value `text` encodes. */
export function parseJsonText(text: JsonText): unknown {
	return JSON.parse(jsonTextString(text));
}

const MARK = `raw-json:${randomBytes(12).toString("hex")}`;
/** How a mark appears in the encoding: a JSON string, quoted. */
const QUOTED_MARK = `"${MARK}"`;

/** The texts handed out as marks while `stringifyWithRaw` runs; null otherwise. */
let marked: JsonText[] | null = null;

export class RawJson {
	constructor(readonly text: JsonText) {}

	toJSON(): unknown {
		if (marked === null) return parseJsonText(this.text);
		marked.push(this.text);
		return MARK;
	}
}

/**
 * A value whose JSON is `text` and whose few `fields` are readable without
 * parsing it (e.g. a message's role), for code that reads them.
 */
export function rawObject<T extends object>(text: JsonText, fields: T): RawJson & T {
	return Object.assign(new RawJson(text), fields);
}

/**
 * The pieces of `json` with its marks replaced by `texts`, in order (joined,
 * the encoding); null when it holds another number of marks.
 */
function splice(json: string, texts: readonly JsonText[]): JsonText[] | null {
	const between = json.split(QUOTED_MARK);
	if (between.length !== texts.length + 1) return null;
	const parts: JsonText[] = new Array(2 * texts.length + 1);
	for (let index = 0; index < texts.length; index++) {
		parts[2 * index] = between[index] as string;
		parts[2 * index + 1] = texts[index] as JsonText;
	}
	parts[2 * texts.length] = between[texts.length] as string;
	return parts;
}

/**
 * JSON.stringify(value) as pieces to write one after the other, every
 * RawJson's text one of them as it stands: a large encoding need never
 * exist as one string (see app/streamed-response.ts).
 */
export function stringifyToParts(value: unknown): JsonText[] {
	const outer = marked;
	const texts: JsonText[] = [];
	marked = texts;
	let json: string;
	try {
		json = JSON.stringify(value);
	} finally {
		marked = outer;
	}
	if (texts.length === 0) return [json];
	return splice(json, texts) ?? [JSON.stringify(value)];
}

/** JSON.stringify(value), with every RawJson's text written in as it stands. */
export function stringifyWithRaw(value: unknown): string {
	return joinJsonText(stringifyToParts(value));
}

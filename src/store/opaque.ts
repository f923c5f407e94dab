/**
 * Opaque strings handed to clients (cursors, global ids): base64 of a short
 * text, usually a JSON array. Clients store them, so a given value must always
 * encode to the same string: each kind keeps the alphabet it was first issued
 * with (session cursors base64url, entry cursors and global ids standard base64).
 * Opaque means "do not parse", not "secret": nothing here is signed, so every
 * decoded value is checked by its caller like any other input.
 */
export type OpaqueAlphabet = "base64" | "base64url";

export function encodeOpaqueText(text: string, alphabet: OpaqueAlphabet): string {
	return Buffer.from(text, "utf8").toString(alphabet);
}

/** Never throws: Node's base64 decoder skips characters outside the alphabet. */
export function decodeOpaqueText(token: string, alphabet: OpaqueAlphabet): string {
	return Buffer.from(token, alphabet).toString("utf8");
}

export function encodeOpaque(parts: readonly unknown[], alphabet: OpaqueAlphabet): string {
	return encodeOpaqueText(JSON.stringify(parts), alphabet);
}

/** The JSON array inside a token, or undefined when there is none; its elements are unchecked. */
export function decodeOpaque(token: string, alphabet: OpaqueAlphabet): unknown[] | undefined {
	try {
		const value: unknown = JSON.parse(decodeOpaqueText(token, alphabet));
		return Array.isArray(value) ? value : undefined;
	} catch {
		return undefined;
	}
}

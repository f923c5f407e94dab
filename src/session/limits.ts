/**
 * Size limits on what a session may hold, checked when an entry, a session
 * or a file is written, so that nothing stored can later fail to be read or
 * sent (a stored entry nested 4,000 levels deep overflows the stack of every
 * JSON encoder that serialises it). The same rules apply to every transport
 * and every backend. Defaults are generous for real pi sessions: a long tool
 * result is a few hundred kB, pi's own JSON nests fewer than 10 levels.
 *
 * The limits are arguments, never process state: a store is opened with the
 * limits it enforces (the server's come from its configuration), and every
 * check below takes them, the defaults when a caller names none.
 */
export interface InputLimits {
	/** Nesting of any JSON value in an entry or header (objects and arrays). */
	jsonDepth: number;
	/** UTF-8 bytes of one entry's own fields (its JSONL line, roughly). */
	entryBytes: number;
	/** Characters of a session name, a cwd, a parent session reference. */
	textLength: number;
	/** UTF-8 bytes of the header fields kept from an imported file. */
	headerBytes: number;
	/** Entries a fork may copy (its path length). */
	forkEntries: number;
	/** Entries one imported file may hold. */
	importEntries: number;
}

export const DEFAULT_INPUT_LIMITS: Readonly<InputLimits> = {
	jsonDepth: 64,
	entryBytes: 4 * 1024 * 1024,
	textLength: 4096,
	headerBytes: 64 * 1024,
	forkEntries: 20_000,
	importEntries: 200_000,
};

/**
 * How viewers are drawn, pure (test/web/avatars.test.ts): one avatar per
 * subject (several tabs of one person are one avatar with a count), but one
 * per anonymous viewer, since nothing says two anonymous tabs are one person.
 * Colours are derived from a stable key, so every page draws a viewer alike.
 */

export interface ViewerLike {
	viewerId: string;
	subject?: string | null;
	focusEntryId?: string | null;
}

export interface AvatarGroup {
	/** The subject, or the viewer id of an anonymous viewer. */
	key: string;
	/** What a person reads: the subject, or "anonymous". */
	name: string;
	initials: string;
	colour: string;
	viewerIds: string[];
	/** One of the viewers is this page's own. */
	isYou: boolean;
}

export function initialsOf(subject: string): string {
	// A subject is often an e-mail address or a service name: its words before any "@".
	const words = subject
		.split("@")[0]
		?.split(/[^\p{L}\p{N}]+/u)
		.filter(Boolean) ?? [subject];
	const letters = words.length > 1 ? `${words[0]?.[0]}${words[1]?.[0]}` : (words[0] ?? subject).slice(0, 2);
	return letters.toUpperCase() || "?";
}

/** A colour of its own for each key, readable behind white text (fixed saturation and lightness). */
export function colourOf(key: string): string {
	let hash = 2166136261;
	for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 16777619);
	return `hsl(${(hash >>> 0) % 360} 55% 38%)`;
}

export function groupViewers(viewers: readonly ViewerLike[], ownViewerId: string | null): AvatarGroup[] {
	const groups = new Map<string, AvatarGroup>();
	for (const viewer of viewers) {
		const key = viewer.subject ? `subject:${viewer.subject}` : `viewer:${viewer.viewerId}`;
		let group = groups.get(key);
		if (!group) {
			const name = viewer.subject ?? "anonymous";
			group = {
				key,
				name,
				initials: viewer.subject ? initialsOf(viewer.subject) : "?",
				colour: colourOf(viewer.subject ?? viewer.viewerId),
				viewerIds: [],
				isYou: false,
			};
			groups.set(key, group);
		}
		group.viewerIds.push(viewer.viewerId);
		if (viewer.viewerId === ownViewerId) group.isYou = true;
	}
	return [...groups.values()];
}

/** What a group's avatar says to a screen reader and in its tooltip. */
export function describeGroup(group: AvatarGroup): string {
	const count = group.viewerIds.length;
	const tabs = count > 1 ? `, ${count} viewers` : "";
	return `${group.name}${tabs}${group.isYou ? " (you)" : ""}`;
}

/** Other viewers by the entry they focus (the page's own viewer is the selection itself). */
export function focusByEntry(
	viewers: readonly ViewerLike[],
	ownViewerId: string | null,
): Map<string, ViewerLike[]> {
	const byEntry = new Map<string, ViewerLike[]>();
	for (const viewer of viewers) {
		if (viewer.viewerId === ownViewerId || !viewer.focusEntryId) continue;
		const list = byEntry.get(viewer.focusEntryId) ?? [];
		list.push(viewer);
		byEntry.set(viewer.focusEntryId, list);
	}
	return byEntry;
}

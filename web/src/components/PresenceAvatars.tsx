/**
 * Who is viewing the session now: a labelled list of avatars, each with its
 * text (the subject, or "anonymous", the count of tabs, "you"), so a screen
 * reader reads the same as the picture says.
 */
import { useMemo } from "react";
import { type AvatarGroup, describeGroup, groupViewers, type ViewerLike } from "../presence/avatars";

export function Avatar({ group, small = false }: { group: AvatarGroup; small?: boolean }) {
	return (
		<span
			className={small ? "avatar avatar-small" : "avatar"}
			style={{ background: group.colour }}
			aria-hidden="true"
		>
			{group.initials}
		</span>
	);
}

export function PresenceAvatars({
	viewers,
	ownViewerId,
}: {
	viewers: readonly ViewerLike[];
	ownViewerId: string | null;
}) {
	const groups = useMemo(() => groupViewers(viewers, ownViewerId), [viewers, ownViewerId]);
	return (
		<ul className="presence" aria-label="Viewing now" data-testid="presence">
			{groups.map((group) => {
				const text = describeGroup(group);
				return (
					<li
						key={group.key}
						className={group.isYou ? "viewer you" : "viewer"}
						title={text}
						data-viewer-ids={group.viewerIds.join(" ")}
						data-you={group.isYou ? "true" : undefined}
					>
						<Avatar group={group} />
						{group.viewerIds.length > 1 ? (
							<span className="viewer-count" aria-hidden="true">
								×{group.viewerIds.length}
							</span>
						) : null}
						{group.isYou ? (
							<span className="you-tag" aria-hidden="true">
								you
							</span>
						) : null}
						<span className="sr-only">{text}</span>
					</li>
				);
			})}
		</ul>
	);
}

/**
 * This page as a viewer of a session: `presence` is subscribed while the
 * page is open (the server keeps the viewer exactly as long as the
 * subscription, so closing the tab or losing the connection leaves), and the
 * selected entry is sent as the viewer's focus with `setPresence`, 300 ms
 * after the selection stops moving (arrow keys held down would otherwise send
 * one mutation per row).
 *
 * A resubscribe (after a reconnect) joins as a new viewer with a new id; its
 * payload's `focusEntryId` is read when it is sent, so the new viewer starts
 * on the current selection and needs no mutation.
 */
import { useEffect, useRef, useState } from "react";
import { client, subscribeLive } from "../api/client";
import { graphql } from "../gql";
import type { SessionPresenceSubscription } from "../gql/graphql";

const SessionPresence = graphql(`
	subscription SessionPresence($sessionId: String!, $focusEntryId: String) {
		presence(sessionId: $sessionId, focusEntryId: $focusEntryId) {
			viewerId
			viewers {
				viewerId
				subject
				focusEntryId
				since
			}
		}
	}
`);

const SetPresence = graphql(`
	mutation SetPresence($input: SetPresenceInput!) {
		setPresence(input: $input) {
			viewerId
			focusEntryId
		}
	}
`);

export type PresenceState = SessionPresenceSubscription["presence"];

export const FOCUS_DEBOUNCE_MS = 300;

export function usePresence(
	sessionId: string,
	focusEntryId: string | null,
): { presence: PresenceState | undefined; error: string | undefined } {
	const [presence, setPresence] = useState<PresenceState>();
	const [error, setError] = useState<string>();
	const focus = useRef(focusEntryId);
	focus.current = focusEntryId;

	useEffect(() => {
		setPresence(undefined);
		setError(undefined);
		return subscribeLive(SessionPresence, () => ({ sessionId, focusEntryId: focus.current }), {
			next: (data) => {
				setError(undefined);
				setPresence(data.presence);
			},
			error: (message) => setError(message),
		});
	}, [sessionId]);

	const viewerId = presence?.viewerId ?? null;
	const announced = presence?.viewers.find((v) => v.viewerId === viewerId)?.focusEntryId ?? null;
	useEffect(() => {
		if (viewerId === null || announced === focusEntryId) return;
		const timer = setTimeout(() => {
			// A failure (the viewer just ended with its connection) is not worth a message: the
			// resubscribe that follows starts on the current selection anyway.
			void client.mutation(SetPresence, { input: { sessionId, viewerId, focusEntryId } }).toPromise();
		}, FOCUS_DEBOUNCE_MS);
		return () => clearTimeout(timer);
	}, [sessionId, viewerId, announced, focusEntryId]);

	return { presence, error };
}

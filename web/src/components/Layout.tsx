import { useEffect, useState } from "react";
import { NavLink, Outlet } from "react-router";
import { type ConnectionState, onConnectionState } from "../api/client";

const STATE_TEXT: Record<ConnectionState, string> = {
	connecting: "connecting…",
	live: "live",
	reconnecting: "reconnecting…",
};

export function Layout() {
	const [state, setState] = useState<ConnectionState>("connecting");
	useEffect(() => onConnectionState(setState), []);
	return (
		<div className="app">
			<header className="app-header">
				<span className="brand">Session trees</span>
				<nav aria-label="Main">
					<NavLink to="/" end>
						Sessions
					</NavLink>
					<NavLink to="/dashboard">Dashboard</NavLink>
					<a href="/graphql">GraphiQL</a>
				</nav>
				<output className={`connection connection-${state}`} aria-live="polite" data-state={state}>
					{STATE_TEXT[state]}
				</output>
			</header>
			<main className="app-main">
				<Outlet />
			</main>
		</div>
	);
}

import { lazy, StrictMode, Suspense } from "react";
import { createRoot } from "react-dom/client";
import { createBrowserRouter, RouterProvider } from "react-router";
import { Provider } from "urql";
import { client } from "./api/client";
import { Layout } from "./components/Layout";
import { NotFoundPage } from "./pages/NotFoundPage";
import { SessionPage } from "./pages/SessionPage";
import { SessionsPage } from "./pages/SessionsPage";
import "./styles.css";

// The dashboard's chart library is most of the bundle: loaded when the dashboard is opened.
const DashboardPage = lazy(async () => ({ default: (await import("./pages/DashboardPage")).DashboardPage }));

const router = createBrowserRouter([
	{
		element: <Layout />,
		children: [
			{ path: "/", element: <SessionsPage /> },
			{ path: "/sessions/:sessionId", element: <SessionPage /> },
			{
				path: "/dashboard",
				element: (
					<Suspense fallback={<p aria-busy="true">Loading the dashboard…</p>}>
						<DashboardPage />
					</Suspense>
				),
			},
			{ path: "*", element: <NotFoundPage /> },
		],
	},
]);

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root");
createRoot(root).render(
	<StrictMode>
		<Provider value={client}>
			<RouterProvider router={router} />
		</Provider>
	</StrictMode>,
);

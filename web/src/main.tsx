import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createBrowserRouter, RouterProvider } from "react-router";
import { Provider } from "urql";
import { client } from "./api/client";
import { Layout } from "./components/Layout";
import { DashboardPage } from "./pages/DashboardPage";
import { NotFoundPage } from "./pages/NotFoundPage";
import { SessionPage } from "./pages/SessionPage";
import { SessionsPage } from "./pages/SessionsPage";
import "./styles.css";

const router = createBrowserRouter([
	{
		element: <Layout />,
		children: [
			{ path: "/", element: <SessionsPage /> },
			{ path: "/sessions/:sessionId", element: <SessionPage /> },
			{ path: "/dashboard", element: <DashboardPage /> },
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

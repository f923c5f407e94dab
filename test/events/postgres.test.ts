/** Live updates over SSE and WebSocket on Postgres, fanned out by LISTEN/NOTIFY. */
import { describeSubscriptions } from "./subscriptions.js";

describeSubscriptions("postgres");

/** Live updates over SSE and WebSocket on PGlite, fanned out by the in-process bus. */
import { describeSubscriptions } from "./subscriptions.js";

describeSubscriptions("pglite");

/**
 * The worker thread's entry: plain JavaScript that Node runs as is, which
 * puts tsx's loader in place and then loads the TypeScript worker. The main
 * thread may run under tsx (`npm start`), `node --import tsx` (the image) or
 * vitest (whose transform does not reach worker threads).
 */
import { register } from "tsx/esm/api";

register();
await import("./worker.ts");

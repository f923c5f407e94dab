/** The real authenticator (AUTH_MODE=jwt with an HS256 secret), as the server builds it from the environment. */
import type { Authenticate } from "../../src/app/authentication.js";
import { authConfig } from "../../src/auth/config.js";
import { createAuthenticator } from "../../src/auth/verify.js";

export function testAuthenticator(secret: string): Authenticate {
	const authenticator = createAuthenticator(
		authConfig({ AUTH_MODE: "jwt", AUTH_JWT_SECRET: secret }, { production: false }),
	);
	return (authorization) => authenticator.authenticate(authorization);
}

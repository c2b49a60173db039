import type { Request } from '@hapi/hapi';
import type Joi from 'joi';

import type { ErrorCode } from '../lib/errors';
import type { Principal } from './principal';

/**
 * Checks a request's credential: resolves with the principal it speaks for, or throws (rejects with)
 * a 401 Boom error. It returns a promise only when it must wait.
 */
export type Verify = (request: Request) => Principal | Promise<Principal>;

/**
 * Checks again the credential of a request admitted earlier and still open (a stream), from the
 * principal it gave then: resolves with the principal it speaks for now, or throws the 401 a new
 * request would get. For a credential shorter-lived than the request it stands for (a device's
 * access token stands for its grant).
 */
export type Recheck = (admitted: Principal) => Promise<Principal>;

/**
 * A way of authenticating a route group's requests, named by the group's `auth.scheme` in
 * gateway.yaml. The gateway runs the group's policy chain on the principal it produces.
 */
/** How the API reference describes an auth scheme. */
export interface AuthSchemeDocs {
    /** Its OpenAPI security scheme. */
    securityScheme: { type: 'http'; scheme: 'bearer'; bearerFormat: string; description: string };
    /** What it answers when authentication fails. */
    errors: readonly ErrorCode[];
    /** The reference's opening words on what a request sends and what the credential reaches; its security scheme's description without them. */
    introduction?: string;
}

export interface AuthScheme<Config extends object = object> {
    /** The scheme's own options, a group's `auth.config` in gateway.yaml, validated when it loads (defaults filled in). */
    config: Joi.ObjectSchema<Config>;
    /** The verifier of one route group; made again when a reload of gateway.yaml brings the group a new config. */
    verifier(config: Config): Verify;
    /** Without one, an open request is checked again as a new one would be (its verifier). */
    rechecker?(config: Config): Recheck;
    docs: AuthSchemeDocs;
}

import type { Lifecycle, Request, ResponseToolkit } from '@hapi/hapi';

import { audit, type AuditEntry } from '../../lib/audit-log';
import type { Models } from '../../models';
import { refusalOf, type Refusal } from './forms';
import { withNotice, type Notice } from './notices';

/**
 * What a form's POST does, declared: the route has checked its CSRF token and validated its payload already.
 * `A` is what the handler answers: a response, or what sentOnce() takes.
 */
export interface FormAction<T, A = Lifecycle.ReturnValue> {
    /** Calls the service. */
    run(request: Request): Promise<T>;
    /** The form's page again, saying why the service refused in words; without it, a refusal is the error page. */
    refused?(request: Request, h: ResponseToolkit, refusal: Refusal): A | Promise<A>;
    /** What the audit log records once it is done; undefined records nothing (done already, from another tab). */
    audited?(request: Request, outcome: T): AuditEntry | undefined;
    /** The answer once done and recorded: most often `redirectWithNotice()`. */
    answer(request: Request, h: ResponseToolkit, outcome: T): A | Promise<A>;
}

/** The handler of a form's POST: run the service, show a refusal on the form, audit what was done, answer. */
export function formAction<T, A = Lifecycle.ReturnValue>(models: Models, action: FormAction<T, A>): (request: Request, h: ResponseToolkit) => Promise<A> {

    return async (request, h) => {

        let outcome: T;
        try {
            outcome = await action.run(request);
        }
        catch (error) {
            if (!action.refused) {
                throw error;
            }

            return action.refused(request, h, refusalOf(error));
        }

        const entry = action.audited?.(request, outcome);
        if (entry) {
            await audit(models, request, entry);
        }

        return action.answer(request, h, outcome);
    };
}

/** Post/redirect/get to `path`, whose page shows `notice`. */
export function redirectWithNotice(h: ResponseToolkit, path: string, notice: Notice): Lifecycle.ReturnValue {

    return h.redirect(withNotice(path, notice));
}

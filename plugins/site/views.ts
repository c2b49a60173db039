import Path from 'path';

import type { Request, Server } from '@hapi/hapi';
import Handlebars from 'handlebars';
import Vision from '@hapi/vision';

import { projectRoot } from '../../lib/config';
import { utf16UnitsFor } from '../../lib/text-length';
import { textLimits, type TextLimit } from '../../lib/text-limits';
import type { SiteContext } from './context';
import type { SiteCredentials } from './credentials';
import { issueFormToken } from './form-tokens';
import { unreadTotal } from './messages/unread-total';
import { noticeOf } from './notices';

export const templatesDir = Path.join(projectRoot, 'plugins', 'site', 'templates');

const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
const integer = new Intl.NumberFormat('en-US');
const fileSizes = ['bytes', 'KB', 'MB', 'GB'];

/** A private Handlebars: `{{…}}` escapes HTML, and these helpers are all the logic templates get. */
function handlebars(): typeof Handlebars {

    const engine = Handlebars.create();
    engine.registerHelper('eq', (a: unknown, b: unknown) => a === b);
    engine.registerHelper('includes', (list: unknown, item: unknown) => Array.isArray(list) && list.includes(item));
    engine.registerHelper('date', (value: unknown) => (value instanceof Date || typeof value === 'string' ? `${dateTime.format(new Date(value))} UTC` : ''));
    engine.registerHelper('number', (value: unknown) => (typeof value === 'number' ? integer.format(value) : '0'));
    engine.registerHelper('array', (...values: unknown[]) => values.slice(0, -1));     // the last is Handlebars' options
    // A field's maxlength (UTF-16 units) for text of `textLimits[name]` characters (plugins/site/forms.ts typedText).
    engine.registerHelper('maxlength', (name: TextLimit) => utf16UnitsFor(textLimits[name]));
    engine.registerHelper('fileSize', (value: unknown) => {

        let size = typeof value === 'number' ? value : 0;
        let unit = 0;
        for (; size >= 1024 && unit < fileSizes.length - 1; ++unit) {
            size /= 1024;
        }

        return unit === 0 ? `${size} bytes` : `${size.toFixed(1)} ${fileSizes[unit]}`;
    });
    engine.registerHelper('join', (list: unknown) => (Array.isArray(list) ? list.join(', ') : ''));
    return engine;
}

const sections: [prefix: string, section: string][] = [['/messages', 'messages'], ['/manage', 'manage'], ['/admin/audit', 'audit'], ['/admin', 'admin'], ['/account/devices', 'devices'], ['/account', 'account']];

/** What every page's layout needs: who is signed in, their unread messages, the CSRF token, a form token, a notice after a redirect. */
async function layoutContext(context: SiteContext, request: Request): Promise<Record<string, unknown>> {

    const credentials = request.auth.isAuthenticated && request.auth.strategy === 'site-session' ? request.auth.credentials as unknown as SiteCredentials : undefined;
    return {
        currentUser: credentials?.user,
        unreadMessages: await unreadTotal(context, request, credentials),
        isManager: credentials?.scope.includes('manager') ?? false,
        crumb: request.plugins.site?.csrfToken,
        // For the forms that show something once (form-tokens.ts); a new one each time a page is drawn.
        formToken: issueFormToken(request),
        notice: noticeOf(request.query.notice),
        // Which main navigation entry is this page's.
        section: sections.find(([prefix]) => request.path.startsWith(prefix))?.[1]
    };
}

export async function registerViews(server: Server, context: SiteContext): Promise<void> {

    await server.register(Vision);
    server.views({
        engines: { hbs: handlebars() },
        relativeTo: templatesDir,
        path: 'pages',
        layout: 'layout',
        layoutPath: 'layouts',
        partialsPath: 'partials',
        // Awaited by vision as it renders each page.
        context: (request: Request) => layoutContext(context, request)
    });
}

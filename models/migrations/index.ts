import * as initial from './0001-initial';
import * as personLinks from './0002-person-links';
import * as files from './0003-files';
import * as webhooks from './0004-webhooks';
import * as site from './0005-site';
import * as searchText from './0006-search-text';
import * as manualAttempts from './0007-manual-attempts';
import * as siteFormTokens from './0008-site-form-tokens';
import * as totpLastStep from './0009-totp-last-step';
import * as idempotencyKeys from './0010-idempotency-keys';
import * as devices from './0011-devices';
import * as messaging from './0012-messaging';
import * as messagingUploads from './0013-messaging-uploads';
import * as messagingSuspension from './0014-messaging-suspension';
import * as apiKeyLivingPersons from './0015-api-key-living-persons';
import * as eventsByPerson from './0016-events-by-person';

/** Every migration, in order. Registered explicitly: no file-name magic. */
export const migrations = [
    { name: '0001-initial', ...initial },
    { name: '0002-person-links', ...personLinks },
    { name: '0003-files', ...files },
    { name: '0004-webhooks', ...webhooks },
    { name: '0005-site', ...site },
    { name: '0006-search-text', ...searchText },
    { name: '0007-manual-attempts', ...manualAttempts },
    { name: '0008-site-form-tokens', ...siteFormTokens },
    { name: '0009-totp-last-step', ...totpLastStep },
    { name: '0010-idempotency-keys', ...idempotencyKeys },
    { name: '0011-devices', ...devices },
    { name: '0012-messaging', ...messaging },
    { name: '0013-messaging-uploads', ...messagingUploads },
    { name: '0014-messaging-suspension', ...messagingSuspension },
    { name: '0015-api-key-living-persons', ...apiKeyLivingPersons },
    { name: '0016-events-by-person', ...eventsByPerson }
];

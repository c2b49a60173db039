import type { Sequelize } from 'sequelize';

import { ApiKey } from './api-key';
import { AuditEvent } from './audit-event';
import { ChangeEvent } from './change-event';
import { Conversation } from './conversation';
import { ConversationMember } from './conversation-member';
import { DeviceGrant } from './device-grant';
import { DeviceRequest } from './device-request';
import { DeviceToken } from './device-token';
import { Family } from './family';
import { IdempotencyKey } from './idempotency-key';
import { Message } from './message';
import { MessagingChange } from './messaging-change';
import { MessagingConflict } from './messaging-conflict';
import { MessagingIdempotencyKey } from './messaging-idempotency-key';
import { MessagingUpload } from './messaging-upload';
import { defineResourceModel, type ResourceModel } from './resource-record';
import { resources, resourceNames, type ResourceName } from './resources';
import { ServiceSetting } from './service-setting';
import { SiteFormToken } from './site-form-token';
import { SiteSession } from './site-session';
import { UsageCounter } from './usage-counter';
import { User } from './user';
import { UserBlock } from './user-block';
import { WebhookAttempt } from './webhook-attempt';
import { WebhookDelivery } from './webhook-delivery';
import { WebhookEndpoint } from './webhook-endpoint';

export interface Models {
    Family: typeof Family;
    User: typeof User;
    ApiKey: typeof ApiKey;
    DeviceRequest: typeof DeviceRequest;
    DeviceGrant: typeof DeviceGrant;
    DeviceToken: typeof DeviceToken;
    ChangeEvent: typeof ChangeEvent;
    IdempotencyKey: typeof IdempotencyKey;
    MessagingUpload: typeof MessagingUpload;
    ServiceSetting: typeof ServiceSetting;
    SiteSession: typeof SiteSession;
    SiteFormToken: typeof SiteFormToken;
    AuditEvent: typeof AuditEvent;
    UsageCounter: typeof UsageCounter;
    WebhookEndpoint: typeof WebhookEndpoint;
    WebhookDelivery: typeof WebhookDelivery;
    WebhookAttempt: typeof WebhookAttempt;
    Conversation: typeof Conversation;
    ConversationMember: typeof ConversationMember;
    Message: typeof Message;
    UserBlock: typeof UserBlock;
    MessagingChange: typeof MessagingChange;
    MessagingConflict: typeof MessagingConflict;
    MessagingIdempotencyKey: typeof MessagingIdempotencyKey;
    /** One model per resource of the family API. */
    records: Record<ResourceName, ResourceModel>;
}

export function defineModels(sequelize: Sequelize): Models {

    const records = {} as Record<ResourceName, ResourceModel>;
    for (const name of resourceNames) {
        records[name] = defineResourceModel(sequelize, resources[name]);
    }

    return {
        Family: Family.define(sequelize),
        User: User.define(sequelize),
        ApiKey: ApiKey.define(sequelize),
        DeviceRequest: DeviceRequest.define(sequelize),
        DeviceGrant: DeviceGrant.define(sequelize),
        DeviceToken: DeviceToken.define(sequelize),
        ChangeEvent: ChangeEvent.define(sequelize),
        IdempotencyKey: IdempotencyKey.define(sequelize),
        MessagingUpload: MessagingUpload.define(sequelize),
        ServiceSetting: ServiceSetting.define(sequelize),
        SiteSession: SiteSession.define(sequelize),
        SiteFormToken: SiteFormToken.define(sequelize),
        AuditEvent: AuditEvent.define(sequelize),
        UsageCounter: UsageCounter.define(sequelize),
        WebhookEndpoint: WebhookEndpoint.define(sequelize),
        WebhookDelivery: WebhookDelivery.define(sequelize),
        WebhookAttempt: WebhookAttempt.define(sequelize),
        Conversation: Conversation.define(sequelize),
        ConversationMember: ConversationMember.define(sequelize),
        Message: Message.define(sequelize),
        UserBlock: UserBlock.define(sequelize),
        MessagingChange: MessagingChange.define(sequelize),
        MessagingConflict: MessagingConflict.define(sequelize),
        MessagingIdempotencyKey: MessagingIdempotencyKey.define(sequelize),
        records
    };
}

export { ApiKey, AuditEvent, ChangeEvent, Conversation, ConversationMember, DeviceGrant, DeviceRequest, DeviceToken, Family, IdempotencyKey, Message, MessagingChange,
    MessagingConflict, MessagingIdempotencyKey, MessagingUpload, ServiceSetting, SiteFormToken, SiteSession, UsageCounter, User, UserBlock, WebhookAttempt, WebhookDelivery,
    WebhookEndpoint };
export type { ResourceModel };

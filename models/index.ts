import type { Sequelize } from 'sequelize';

import { ApiKey } from './api-key';
import { ChangeEvent } from './change-event';
import { Family } from './family';
import { defineResourceModel, type ResourceModel } from './resource-record';
import { resources, resourceNames, type ResourceName } from './resources';
import { ServiceSetting } from './service-setting';
import { User } from './user';

export interface Models {
    Family: typeof Family;
    User: typeof User;
    ApiKey: typeof ApiKey;
    ChangeEvent: typeof ChangeEvent;
    ServiceSetting: typeof ServiceSetting;
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
        ChangeEvent: ChangeEvent.define(sequelize),
        ServiceSetting: ServiceSetting.define(sequelize),
        records
    };
}

export { ApiKey, ChangeEvent, Family, ServiceSetting, User };
export type { ResourceModel };

export { changeEventData, type ChangeBatch, type ChangeBus, type ChangeEventData, type ChangeListener } from './bus';
export { openChangeLog, openFamilyChangeLog, takeFamilyWriteTurn, type FamilyChange, type FamilyChangeLog } from './family-change-log';
export { LocalChangeBus } from './local';
export { RedisChangeBus } from './redis';

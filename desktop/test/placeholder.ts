import * as Lab from '@hapi/lab';

export const lab = Lab.script();

/**
 * The most characters (code points, `lib/text-length.ts`) each free text of the accounts and
 * webhooks holds. Declared once: the services refuse more in words, the JSON routes' joi
 * schemas and the hosted site's forms (`maxlength`, their joi bound) derive from it, and so
 * do the models' VARCHAR(n).
 */
export const textLimits = {
    familyName: 200,
    email: 320,
    apiKeyName: 100,
    deviceName: 100,
    suspensionReason: 500,
    webhookUrl: 2048,
    webhookDescription: 500,
    webhookDisableReason: 500
} as const;

export type TextLimit = keyof typeof textLimits;

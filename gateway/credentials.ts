/** What an authenticated API request knows about its key and family (request.auth.credentials). */
export interface ApiKeyCredentials {
    key: {
        id: string;
        name: string;
        resourceScopes: readonly string[];
        operationScopes: readonly string[];
        predatesWriteScopes: boolean;
    };
    family: {
        familyLongId: string;
        name: string;
        plan: string;
        apiEnabled: boolean;
        /** The resources the family exposes; a key reaches the intersection with its own scopes. */
        apiResources: readonly string[];
        suspended: boolean;
    };
}

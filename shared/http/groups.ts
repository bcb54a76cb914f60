import type { GroupDef, GroupName } from '../api/route';

/** Every endpoint group, one Lambda each. */
export const groups: Record<GroupName, GroupDef> = {
  auth: {
    name: 'auth',
    description: 'JWT login, refresh and the JWKS; social apps and provider login',
    envelope: 'detail',
    changesAccess: true,
  },
  accounts: {
    name: 'accounts',
    description: 'Users, organizations, sites, site permissions and apps',
    envelope: 'detail',
    changesAccess: true,
  },
  roles: {
    name: 'roles',
    description: 'Application roles, site roles, memberships and the role hierarchy',
    envelope: 'roles',
  },
  secrets: {
    name: 'secrets',
    description: 'The secret store: secret types, secrets (envelope-encrypted) and tags',
    envelope: 'secrets',
  },
  data: {
    name: 'data',
    description: 'Data tables: table schemas and records',
    envelope: 'data',
    usesSql: true,
  },
  meta: {
    name: 'meta',
    description: 'The API description, its explorer and the health check',
    envelope: 'detail',
    // The health check reads the data plane's schema version, so this function sits beside the data function.
    usesSql: true,
  },
  invitations: {
    name: 'invitations',
    description: 'Organization invitations: create, list, resend, cancel; public details and acceptance',
    envelope: 'detail',
    // Acceptance adds memberships and site permissions.
    changesAccess: true,
  },
  events: {
    name: 'events',
    description: 'Event functions registry and subscriptions (PRE/POST_USER_CREATE)',
    envelope: 'events',
  },
  pages: {
    name: 'pages',
    description:
      'Hosted pages: invitation, sign-in, provider callback and account (HTML over the public API)',
    envelope: 'detail',
  },
};

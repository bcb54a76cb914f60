import { useId } from 'react';
import type { SitePermission } from '../queries/people';

/**
 * The site permissions in words: a label and one line of what it lets a person do, as the API's policy grants
 * them (docs/authorization.md). The checkboxes, the invitation form and every "Read only" hint use these words, so
 * a hint names a permission a checkbox carries.
 */
export const permissionWords: Record<SitePermission, { label: string; explanation: string }> = {
  access_site: { label: 'Access', explanation: 'Signs in to the site; reads nothing by itself.' },
  view_site: { label: 'View', explanation: 'Reads tables, records, secrets, roles and settings.' },
  change_site: { label: 'Change', explanation: 'Creates and edits records, sets secrets and their tags.' },
  delete_site: { label: 'Delete', explanation: 'Deletes records and secrets.' },
  manage_site: {
    label: 'Configure',
    explanation: 'Defines tables, secret types, tags, apps, roles, functions and subscriptions.',
  },
  manage_site_users: { label: 'Manage people', explanation: 'Assigns and revokes roles, with expiry.' },
  admin_site: { label: 'Administer', explanation: 'Everything above on this site.' },
};

/** The site permissions in the order the forms list them. */
export const sitePermissions = Object.keys(permissionWords) as SitePermission[];

/** The site actions the console asks the API about, and the permission that grants each. */
const grantedBy = {
  configure: 'manage_site',
  manage_users: 'manage_site_users',
  change: 'change_site',
  delete: 'delete_site',
} as const satisfies Record<string, SitePermission>;

/** A permission's words: "Change" (the label), for hints and notices. */
export function permissionLabel(permission: string): string {
  return permissionWords[permission as SitePermission]?.label ?? permission;
}

/** "Read only: changing records needs the “Change” permission on this site." */
export function readOnlyHint(what: string, action: keyof typeof grantedBy): string {
  return `Read only: ${what} needs the “${permissionWords[grantedBy[action]].label}” permission on this site.`;
}

/** A hint line for what the person may not do here. */
export function ReadOnly({ what, action }: { what: string; action: keyof typeof grantedBy }) {
  return <p className="muted read-only">{readOnlyHint(what, action)}</p>;
}

/**
 * Roles on a site as the invitation form offers them: named bundles of the permissions above (the API takes the
 * permissions; a role is the console's shorthand for the usual bundles). "Custom" keeps the boxes as ticked.
 */
export const siteRoles: readonly { id: string; label: string; permissions: readonly SitePermission[] }[] = [
  { id: 'viewer', label: 'Viewer: reads the site', permissions: ['access_site', 'view_site'] },
  {
    id: 'editor',
    label: 'Editor: reads, changes and deletes content',
    permissions: ['access_site', 'view_site', 'change_site', 'delete_site'],
  },
  {
    id: 'manager',
    label: 'Manager: an editor who also configures the site and manages people',
    permissions: [
      'access_site',
      'view_site',
      'change_site',
      'delete_site',
      'manage_site',
      'manage_site_users',
    ],
  },
  { id: 'administrator', label: 'Administrator: everything on the site', permissions: ['admin_site'] },
];

/** The role whose bundle is exactly these permissions, else `custom`. */
export function roleOf(permissions: readonly string[]): string {
  const same = (bundle: readonly string[]) =>
    bundle.length === permissions.length && bundle.every((permission) => permissions.includes(permission));
  return siteRoles.find((role) => same(role.permissions))?.id ?? 'custom';
}

/** A checkbox a permission: its label, and its one line of explanation under it (tied by `aria-describedby`). */
export function PermissionBox({
  permission,
  checked,
  onChange,
  name,
  explained = true,
}: {
  permission: SitePermission;
  checked: boolean;
  onChange: (checked: boolean) => void;
  /** The accessible name when the label alone is ambiguous ("Change for bo"). */
  name?: string;
  explained?: boolean;
}) {
  const words = permissionWords[permission];
  const id = useId();
  return (
    <label
      className={explained ? 'check explained' : 'check'}
      title={explained ? undefined : words.explanation}
    >
      <input
        type="checkbox"
        aria-label={name ?? words.label}
        aria-describedby={explained ? `${id}-why` : undefined}
        checked={checked}
        onChange={(event) => onChange(event.target.checked)}
      />{' '}
      <span>
        {words.label}
        {explained && (
          <span className="hint" id={`${id}-why`}>
            {words.explanation}
          </span>
        )}
      </span>
    </label>
  );
}

/** Each permission's words once, above a table of checkboxes that carry only the labels. */
export function PermissionLegend() {
  return (
    <dl className="legend">
      {sitePermissions.map((permission) => (
        <div key={permission}>
          <dt>{permissionWords[permission].label}</dt>
          <dd>{permissionWords[permission].explanation}</dd>
        </div>
      ))}
    </dl>
  );
}

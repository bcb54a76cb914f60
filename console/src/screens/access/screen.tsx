import { useQuery } from '@tanstack/react-query';
import { AppPicker, useChosenApp } from '../../kit/parts';
import { ReadOnly } from '../../kit/permissions';
import type { Place } from '../../place';
import { answerOf, clientFor } from '../../queries/client';
import type { Abilities } from '../../queries/organizations';
import { AppRoles } from './app-roles';
import { Bulk } from './bulk';
import { Holders } from './holders';
import { SiteRoles } from './site-roles';

export function AccessScreen({ place, abilities }: { place: Place; abilities?: Abilities }) {
  const site = place.site ?? '';
  const app = useChosenApp(place);
  const appRoles = useQuery({
    queryKey: ['app-roles', site, app],
    enabled: Boolean(app),
    queryFn: () =>
      answerOf(
        clientFor(site).GET('/api/app/{app_slug}/roles', {
          params: { path: { app_slug: app ?? '' }, query: { page_size: 100 } },
        }),
      ),
  });
  const siteRoles = useQuery({
    queryKey: ['site-roles', site],
    queryFn: () => answerOf(clientFor(site).GET('/api/roles/', { params: { query: { page_size: 100 } } })),
  });
  const configure = abilities?.can('configure') ?? false;
  const manage = abilities?.can('manage_users') ?? false;
  const roles: [string, string][] = [
    ...(appRoles.data?.data ?? []).map((role): [string, string] => [role.slug, `${role.name} (app role)`]),
    ...(siteRoles.data?.data ?? []).map((role): [string, string] => [role.slug, `${role.name} (site role)`]),
  ];
  return (
    <>
      <h1>Access</h1>
      <AppPicker place={place} section="access" />
      {!configure && <ReadOnly what="defining roles" action="configure" />}
      {app && <AppRoles site={site} app={app} query={appRoles} configure={configure} />}
      <SiteRoles site={site} query={siteRoles} appRoles={appRoles.data?.data ?? []} configure={configure} />
      <Holders site={site} org={place.org ?? ''} roles={roles} manage={manage} />
      {manage ? (
        <Bulk site={site} org={place.org ?? ''} roles={roles} />
      ) : (
        <ReadOnly what="assigning roles" action="manage_users" />
      )}
    </>
  );
}

import { useQuery } from '@tanstack/react-query';
import { useApps } from '../kit/parts';
import { productName } from '../kit/product';
import { href, type Place } from '../place';
import { answerOf, clientFor } from '../queries/client';
import { useOrganization } from '../queries/organizations';

interface Level {
  label: string;
  name: string;
  to: Place;
  className?: string;
}

/**
 * Where you are, by name at every level (the organization's, the site's, the app's; the short id only while the
 * name loads), each a link to its level. The site's name is highlighted, so nobody edits the wrong tenant.
 */
export function Crumbs({ place }: { place: Place }) {
  const org = useOrganization(place.org);
  const site = useQuery({
    queryKey: ['site', place.site],
    enabled: Boolean(place.site),
    queryFn: () => answerOf(clientFor(place.site).GET('/api/pages/site/')),
  });
  const apps = useApps(place.site ?? '', Boolean(place.site && place.app));
  const app = apps.data?.results.find((candidate) => candidate.slug === place.app);
  const levels: Level[] = [];
  const all = [
    place.org && { label: 'Organization', name: org.data?.name ?? place.org, to: { org: place.org } },
    place.site && {
      label: 'Site',
      name: site.data?.name ?? place.site,
      to: { org: place.org, site: place.site },
      className: 'site-name',
    },
    place.app && {
      label: 'App',
      name: app?.name ?? place.app,
      to: { org: place.org, site: place.site, app: place.app },
    },
  ];
  for (const level of all) if (level) levels.push(level);
  return (
    <nav aria-label="Where you are" className="crumbs">
      <a href={href({})}>{productName}</a>
      {levels.map((level) => (
        <span key={level.label} className="crumb">
          <span aria-hidden="true">›</span>
          <a href={href(level.to)} className={level.className}>
            {level.label}: <strong>{level.name}</strong>
          </a>
        </span>
      ))}
    </nav>
  );
}

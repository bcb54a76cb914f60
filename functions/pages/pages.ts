import { passwordMinLength } from '../../shared/accounts/password-policy';
import { requestOrigin } from '../../shared/api/pagination';
import type { HttpResult } from '../../shared/api/result';
import type { RequestContext } from '../../shared/http/context';
import { signInHostFixed } from '../../shared/social/providers';
import { accountSecuritySections } from './account-security';
import { apiGet } from './api';
import {
  esc,
  field,
  formAlert,
  layout,
  messagePage,
  noscript,
  pageHeaders,
  productName,
  safeIconUrl,
} from './html';
import { allowedReturnTo } from './return-to';

/**
 * The hosted pages (docs/pages.md). Each page reads what it shows through the public API (pages/api.ts) and
 * answers HTML, its errors included, with the status that fits; what a person then does (accept, sign in, change
 * a password, link, unlink, sign out) is a request of their browser to the API (pages/assets/pages.js).
 */

type Ctx = RequestContext<unknown, Record<string, unknown>, Record<string, string>>;

/** The path of the provider callback page: the redirect URI to register with each provider. */
export const callbackPath = '/sign-in/callback';

function htmlResult(status: number, body: string, headers: Record<string, string> = {}): HttpResult {
  return {
    status,
    raw: { contentType: 'text/html; charset=utf-8', body },
    headers: { ...pageHeaders, ...headers },
  };
}

function queryValue(ctx: Ctx, name: string): string | undefined {
  const value = ctx.query[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
}

interface PageSite {
  /** The site's slug, or null when the request names none (no `?site=`, host rule or DEFAULT_SITE). */
  slug: string | null;
  name: string;
  /** Whether the site came from `?site=` (links between pages then carry it). */
  fromQuery: boolean;
}

class PageRefusal extends Error {
  constructor(readonly result: HttpResult) {
    super('page refused');
  }
}

function refuse(status: number, title: string, message: string, siteName = productName): never {
  throw new PageRefusal(htmlResult(status, messagePage({ title, siteName, message })));
}

/** The page's site: `?site=`, else the API's rules (X-Site, the host name, DEFAULT_SITE), read through the API. */
async function pageSite(ctx: Ctx): Promise<PageSite> {
  const named = queryValue(ctx, 'site');
  if (named !== undefined && !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(named))
    refuse(400, 'This link names no valid site', 'The site in this link is not a site name. Check the link.');
  const answer = await apiGet(ctx, '/api/pages/site/', named ?? null, '', { anonymous: true });
  if (answer.status === 200) return { slug: answer.body.slug, name: answer.body.name, fromQuery: !!named };
  if (answer.status === 404)
    refuse(404, 'Site not found', 'There is no site of this name. Check the link you followed.');
  if (named === undefined && answer.status === 400)
    return { slug: null, name: productName, fromQuery: false };
  refuse(400, 'This link names no valid site', 'The site in this link cannot be used. Check the link.');
}

/** `?site=<slug>` for links between pages, when the site came from the query. */
function siteQuery(site: PageSite, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams(site.fromQuery && site.slug ? { site: site.slug, ...extra } : extra);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A same-origin path without a query, with the page's `?site=` (so the next page names the same site). */
function withSite(path: string, site: PageSite): string {
  return path.includes('?') ? path : `${path}${siteQuery(site)}`;
}

/** The validated `return_to`, or a 400 page for one outside the allowlist. */
function returnTo(ctx: Ctx, site: PageSite): string | undefined {
  const value = queryValue(ctx, 'return_to');
  if (value === undefined || value === '') return undefined;
  const allowed = allowedReturnTo(value, site.slug, requestOrigin(ctx.headers), ctx.deps.config.pages);
  if (allowed === undefined)
    refuse(
      400,
      'This sign-in link is not allowed',
      'The link asks to send you to an address this site does not trust after signing in, so it was stopped. ' +
        'Go to the site you wanted and sign in from there.',
      site.name,
    );
  return allowed;
}

/** Runs a page; a refusal becomes its HTML page. */
async function rendered(page: () => Promise<HttpResult>): Promise<HttpResult> {
  try {
    return await page();
  } catch (error) {
    if (error instanceof PageRefusal) return error.result;
    throw error;
  }
}

interface SocialApp {
  id: number;
  provider: string;
  provider_id: string;
  name: string;
  icon?: string;
  auto_redirect?: boolean;
  is_configured: boolean;
}

/** The provider key a login route takes: an OpenID Connect app's `provider_id`, else the provider's name. */
const providerKey = (app: SocialApp) => (app.provider === 'openid_connect' ? app.provider_id : app.provider);

/** The site's configured social apps (the public list, first 100). */
async function socialApps(ctx: Ctx, site: PageSite): Promise<SocialApp[]> {
  if (!site.slug) return [];
  const answer = await apiGet(ctx, '/api/auth/social-apps/', site.slug, 'page_size=100&ordering=name', {
    anonymous: true,
  });
  if (answer.status !== 200) return [];
  return (answer.body.data as SocialApp[]).filter((app) => app.is_configured);
}

function providerButton(app: SocialApp, verb: string): string {
  const icon = safeIconUrl(app.icon);
  return `<li><button type="button" class="provider" data-provider="${esc(providerKey(app))}">${
    icon ? `<img src="${esc(icon)}" alt="" width="20" height="20">` : ''
  }<span>${esc(verb)} ${esc(app.name)}</span></button></li>`;
}

interface CurrentUser {
  id: number;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
}

/** The signed-in user of the browser's session, or null. */
async function currentUser(ctx: Ctx, site: PageSite): Promise<CurrentUser | null> {
  if (!ctx.headers.cookie?.includes('sessionid=')) return null;
  const answer = await apiGet(ctx, '/api/cloud/users/me/', site.slug);
  return answer.status === 200 ? (answer.body as CurrentUser) : null;
}

const displayName = (user: { first_name: string; last_name: string; username?: string; email?: string }) =>
  `${user.first_name} ${user.last_name}`.trim() || user.username || user.email || '';

const passwordHint = `At least ${passwordMinLength} characters, not easy to guess. A phrase of a few unrelated words is best.`;

// ---------------------------------------------------------------------------------------------- invitation

export function invitationPage(ctx: Ctx): Promise<HttpResult> {
  return rendered(async () => {
    const token = ctx.params.token ?? '';
    const site: PageSite = { slug: null, name: productName, fromQuery: false };
    const back = returnTo(ctx, site);
    const gone = (title: string, message: string, status: number, link?: { href: string; text: string }) =>
      htmlResult(status, messagePage({ title, siteName: productName, message, ...(link ? { link } : {}) }));
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(token))
      return gone(
        'This invitation link is not valid',
        'The link may have been cut short. Open it again from the e-mail.',
        404,
      );
    const answer = await apiGet(ctx, `/api/cloud/invitations/${token}/details/`, null);
    if (answer.status === 410) {
      const used = /accepted/i.test(String(answer.body?.detail ?? ''));
      return used
        ? gone(
            'This invitation has already been accepted',
            'It can be used only once. If it was you, sign in with your e-mail address and the password you chose.',
            410,
            { href: '/console/', text: 'Sign in to the console' },
          )
        : gone(
            'This invitation has expired',
            'Invitation links work for a limited time. Ask the person who invited you to send the invitation again.',
            410,
          );
    }
    if (answer.status === 429)
      return gone(
        'Too many attempts',
        'This address tried too many invitation links. Wait a few minutes, then open the link again.',
        429,
      );
    if (answer.status !== 200)
      return gone(
        'This invitation link is not valid',
        'The invitation may have been cancelled, or a newer e-mail replaced this one. Open the latest invitation ' +
          'e-mail, or ask the organization to invite you again.',
        404,
      );
    const invitation = answer.body;
    const organization = String(invitation.organization_name);
    const inviter = displayName(invitation.invited_by_user);
    const existing = invitation.invitee_user?.is_active === true;
    const email = String(invitation.invitee_identifier);
    const intro = existing
      ? `<p>${esc(inviter)} invited you to join <strong>${esc(organization)}</strong>. You already have an account
with the address <strong>${esc(email)}</strong>: confirm your name and choose a new password to sign in and join.
Your new password replaces your current one.</p>`
      : `<p>${esc(inviter)} invited you to join <strong>${esc(organization)}</strong>. Set up your account for
<strong>${esc(email)}</strong>: enter your name and choose a password.</p>
<p>Your username will be this e-mail address: you sign in with it and the password you choose here.</p>`;
    const body = `<h1>${existing ? 'Sign in to join' : 'Join'} ${esc(organization)}</h1>
${intro}
${noscript}
<form id="invitation-form" novalidate>
${formAlert}
${field({ name: 'first_name', label: 'First name', autocomplete: 'given-name', value: existing ? invitation.invitee_user.first_name : '' })}
${field({ name: 'last_name', label: 'Last name', autocomplete: 'family-name', value: existing ? invitation.invitee_user.last_name : '' })}
${field({ name: 'password', label: existing ? 'New password' : 'Password', type: 'password', autocomplete: 'new-password', hint: passwordHint })}
<button type="submit">${existing ? 'Sign in and join' : 'Create my account and join'}</button>
</form>`;
    return htmlResult(
      200,
      layout({
        title: `Join ${organization}`,
        siteName: organization,
        data: {
          page: 'invitation',
          token,
          email,
          username: invitation.invitee_user?.username ?? '',
          // Without a return_to (the e-mail's link), acceptance leads into the console at the organization.
          after: back ?? ctx.deps.config.pages.afterSignIn,
          ...(back ? {} : { 'into-console': '/console/#/o/' }),
        },
        body,
      }),
    );
  });
}

// ---------------------------------------------------------------------------------------------- sign-in

export function signInPage(ctx: Ctx): Promise<HttpResult> {
  return rendered(async () => {
    const site = await pageSite(ctx);
    const back = returnTo(ctx, site);
    const [apps, user] = await Promise.all([socialApps(ctx, site), currentUser(ctx, site)]);
    const stopAuto = queryValue(ctx, 'auto_redirect') === '0';
    const auto = apps.filter((app) => app.auto_redirect === true);
    const autoApp = !stopAuto && !user && auto.length === 1 ? auto[0] : undefined;
    // Without a click only to a provider whose sign-in host the platform fixed; a site's own provider is asked
    // for first, with its host named (docs/pages.md, "Automatic redirection").
    const unasked = autoApp !== undefined && signInHostFixed(autoApp.provider);
    const after = back ?? withSite(ctx.deps.config.pages.afterSignIn, site);
    const signedIn = user
      ? `<section class="signed-in" aria-labelledby="signed-in-heading">
<h2 id="signed-in-heading">You are signed in</h2>
<p>Signed in as <strong>${esc(displayName(user))}</strong> (${esc(user.email || user.username)}).</p>
<p><a class="button-link" href="${esc(after)}">Continue</a> <button type="button" class="secondary" data-sign-out>Sign out</button></p>
</section>`
      : '';
    const otherWay = `<a href="${esc(`/sign-in${siteQuery(site, { auto_redirect: '0', ...(back ? { return_to: back } : {}) })}`)}">Sign in another way</a>`;
    const autoNotice = !autoApp
      ? ''
      : unasked
        ? `<p class="notice" role="status">Taking you to ${esc(autoApp.name)} to sign in… ${otherWay}</p>`
        : `<section class="notice leaving" aria-labelledby="leaving-heading" data-leaving>
<h2 id="leaving-heading">Sign in with ${esc(autoApp.name)}</h2>
<p>This site signs in with ${esc(autoApp.name)}, a provider of its own. Continuing takes you to <strong data-leaving-host>its sign-in page</strong>, which this platform does not run.</p>
<p><a class="button-link" href="#" hidden data-leaving-continue>Continue to ${esc(autoApp.name)}</a> ${otherWay}</p>
</section>`;
    const providers = apps.length
      ? `<section aria-labelledby="providers-heading">
<h2 id="providers-heading">Sign in with a provider</h2>
<ul class="providers">${apps.map((app) => providerButton(app, 'Continue with')).join('')}</ul>
</section>`
      : '';
    const body = `<h1>Sign in to ${esc(site.name)}</h1>
${signedIn}${autoNotice}${noscript}
<form id="sign-in-form" novalidate>
${formAlert}
${field({ name: 'username', label: 'Username or e-mail', autocomplete: 'username' })}
${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password' })}
<button type="submit">Sign in</button>
<p class="aside"><a href="${esc(`${resetPath}${siteQuery(site)}`)}">Forgot your password?</a>${
      ctx.deps.config.signUp.open
        ? ` · <a href="${esc(`${signUpPath}${siteQuery(site)}`)}">Make an account</a>`
        : ''
    }</p>
</form>
<form id="second-factor-form" novalidate hidden aria-labelledby="second-factor-title">
<h2 id="second-factor-title">Your second factor</h2>
<p>The password is right. Enter the code your authenticator app shows now, or one of your recovery codes.</p>
<p class="form-alert" role="alert" data-second-factor-alert></p>
${field({ name: 'code', label: 'Code or recovery code', autocomplete: 'one-time-code' })}
<button type="submit">Verify</button>
</form>
${providers}`;
    return htmlResult(
      200,
      layout({
        title: 'Sign in',
        siteName: site.name,
        data: {
          page: 'sign-in',
          site: site.slug,
          after,
          'return-to': back,
          'auto-redirect': autoApp && unasked ? providerKey(autoApp) : null,
          'auto-confirm': autoApp && !unasked ? providerKey(autoApp) : null,
          'sign-in': `/sign-in${siteQuery(site)}`,
        },
        body,
      }),
    );
  });
}

// ---------------------------------------------------------------------------------------------- password reset

/** The reset page: the link of a reset e-mail is `PASSWORD_RESET_LINK_BASE#<token>`, this page by default. */
export const resetPath = '/reset-password';

/**
 * A forgotten password (docs/pages.md, "Forgotten passwords"). Two forms, one shown: without a token after `#`,
 * the address to send a link to; with one (the e-mail's link), the new password. The token stays in the fragment,
 * so it never reaches a server log or a `Referer`; the script reads it and takes it out of the address bar.
 */
export function passwordResetPage(ctx: Ctx): Promise<HttpResult> {
  return rendered(async () => {
    const site = await pageSite(ctx);
    const signIn = `/sign-in${siteQuery(site, { auto_redirect: '0' })}`;
    const body = `<h1>Reset your password</h1>
${noscript}
<form id="reset-request-form" novalidate hidden>
<p>Enter the e-mail address of your account. If it has one, a link to choose a new password is sent to it.</p>
${formAlert}
${field({ name: 'email', label: 'E-mail address', type: 'email', autocomplete: 'email' })}
<button type="submit">Send the link</button>
</form>
<p class="notice" role="status" hidden data-reset-sent></p>
<form id="reset-confirm-form" novalidate hidden>
<p>Choose a new password. Every other session of your account is signed out.</p>
${formAlert}
${field({ name: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', hint: passwordHint })}
<button type="submit">Set the new password</button>
</form>
<section class="notice" role="status" hidden data-reset-done>
<p data-reset-done-message></p>
<p><a class="button-link" href="${esc(signIn)}">Sign in</a></p>
</section>
<p class="aside"><a href="${esc(signIn)}">Back to sign-in</a></p>`;
    return htmlResult(
      200,
      layout({
        title: 'Reset your password',
        siteName: site.name,
        data: { page: 'password-reset', site: site.slug, 'reset-path': `${resetPath}${siteQuery(site)}` },
        body,
      }),
    );
  });
}

// ---------------------------------------------------------------------------------------------- sign-up

/** The sign-up page, and the page of the link that confirms an address (`EMAIL_VERIFICATION_LINK_BASE#<token>`). */
export const signUpPath = '/sign-up';

/** Self sign-up (docs/pages.md): only while the platform allows it (`SIGN_UP=open`), else a page that says so. */
export function signUpPage(ctx: Ctx): Promise<HttpResult> {
  return rendered(async () => {
    const site = await pageSite(ctx);
    const signIn = `/sign-in${siteQuery(site, { auto_redirect: '0' })}`;
    if (!ctx.deps.config.signUp.open)
      return htmlResult(
        403,
        messagePage({
          title: 'Sign-up is closed',
          siteName: site.name,
          message: 'This platform does not let anyone make an account: ask an organization to invite you.',
          link: { href: signIn, text: 'Back to sign-in' },
        }),
      );
    const body = `<h1>Make an account</h1>
${noscript}
<form id="sign-up-form" novalidate>
${formAlert}
${field({ name: 'email', label: 'E-mail address', type: 'email', autocomplete: 'email' })}
${field({ name: 'first_name', label: 'First name', autocomplete: 'given-name' })}
${field({ name: 'last_name', label: 'Last name', autocomplete: 'family-name' })}
${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', hint: passwordHint })}
<p>Your e-mail address is your username. The account works once you confirm the address with the link sent to it.</p>
<button type="submit">Make my account</button>
</form>
<p class="notice" role="status" hidden data-sign-up-sent></p>
<p class="aside"><a href="${esc(signIn)}">I have an account: sign in</a></p>`;
    return htmlResult(
      200,
      layout({
        title: 'Make an account',
        siteName: site.name,
        data: { page: 'sign-up', site: site.slug },
        body,
      }),
    );
  });
}

export const verifyEmailPath = '/verify-email';

/** The confirmation link's page: the script sends the token after `#` and says what came of it. */
export function verifyEmailPage(ctx: Ctx): Promise<HttpResult> {
  return rendered(async () => {
    const site = await pageSite(ctx);
    const signIn = `/sign-in${siteQuery(site, { auto_redirect: '0' })}`;
    const body = `<h1>Confirm your e-mail address</h1>
${noscript}
<p class="notice" role="status" data-verify-status>Confirming the address…</p>
<p><a class="button-link" href="${esc(signIn)}" hidden data-verify-sign-in>Sign in</a></p>`;
    return htmlResult(
      200,
      layout({
        title: 'Confirm your e-mail address',
        siteName: site.name,
        data: { page: 'verify-email', site: site.slug },
        body,
      }),
    );
  });
}

// ---------------------------------------------------------------------------------------------- callback

/** What a provider's `error` means to a person. */
function providerError(error: string): { title: string; message: string } {
  if (error === 'access_denied')
    return {
      title: 'Sign-in was cancelled',
      message:
        'The provider did not let this site sign you in: you declined, or the provider refused. Nothing was changed.',
    };
  return {
    title: 'The provider could not sign you in',
    message: 'The sign-in provider reported a problem and sent you back. Nothing was changed. Try again.',
  };
}

export function signInCallbackPage(ctx: Ctx): Promise<HttpResult> {
  return rendered(async () => {
    const site = await pageSite(ctx);
    const signIn = `/sign-in${siteQuery(site, { auto_redirect: '0' })}`;
    const error = queryValue(ctx, 'error');
    const code = queryValue(ctx, 'code');
    const state = queryValue(ctx, 'state');
    if (error !== undefined || !code || !state) {
      const { title, message } = error
        ? providerError(error)
        : {
            title: 'This sign-in link is incomplete',
            message: 'The provider sent you back without what this site needs to sign you in. Start again.',
          };
      return htmlResult(
        400,
        messagePage({ title, siteName: site.name, message, link: { href: signIn, text: 'Back to sign-in' } }),
      );
    }
    const body = `<h1>Signing you in…</h1>
<p class="notice" role="status" data-callback-status>Completing the sign-in with the provider.</p>
${noscript}
<div class="callback-error" hidden data-callback-error>
<p role="alert" data-callback-message></p>
<p><a class="button-link" href="${esc(signIn)}">Back to sign-in</a></p>
</div>`;
    return htmlResult(
      200,
      layout({
        title: 'Signing in',
        siteName: site.name,
        data: {
          page: 'callback',
          site: site.slug,
          after: ctx.deps.config.pages.afterSignIn,
          'sign-in': signIn,
        },
        body,
      }),
    );
  });
}

// ---------------------------------------------------------------------------------------------- account

interface SocialLink {
  id: number;
  provider: string;
  site: string;
  email: string;
  created: string;
}

export function accountPage(ctx: Ctx): Promise<HttpResult> {
  return rendered(async () => {
    const site = await pageSite(ctx);
    const user = await currentUser(ctx, site);
    if (!user) {
      const target = `/sign-in${siteQuery(site, { return_to: `/account${siteQuery(site)}` })}`;
      return { status: 303, headers: { ...pageHeaders, location: target } };
    }
    const [apps, linksAnswer] = await Promise.all([
      socialApps(ctx, site),
      apiGet(ctx, '/api/auth/social-accounts/', site.slug, 'page_size=100'),
    ]);
    const links: SocialLink[] = linksAnswer.status === 200 ? linksAnswer.body.results : [];
    const names = new Map(apps.map((app) => [providerKey(app), app.name]));
    const linked = new Set(links.filter((link) => link.site === site.slug).map((link) => link.provider));
    const linkRows = links.length
      ? `<ul class="links">${links
          .map(
            (link) => `<li><span><strong>${esc(names.get(link.provider) ?? link.provider)}</strong>${
              link.email ? ` (${esc(link.email)})` : ''
            }<span class="muted"> · site ${esc(link.site)}</span></span>
<button type="button" class="secondary" data-unlink="${esc(link.id)}" aria-label="Unlink ${esc(names.get(link.provider) ?? link.provider)}">Unlink</button></li>`,
          )
          .join('')}</ul>`
      : '<p>No provider is linked to your account.</p>';
    const linkable = apps.filter((app) => !linked.has(providerKey(app)));
    const body = `<h1>Your account</h1>
<section aria-labelledby="who-heading">
<h2 id="who-heading">Who you are</h2>
<dl class="facts">
<dt>Name</dt><dd>${esc(displayName(user))}</dd>
<dt>E-mail</dt><dd>${esc(user.email)}</dd>
<dt>Username</dt><dd>${esc(user.username)}</dd>
</dl>
</section>
<section aria-labelledby="password-heading">
<h2 id="password-heading">Change your password</h2>
${noscript}
<form id="password-form" novalidate>
${formAlert}
${field({ name: 'current_password', label: 'Current password', type: 'password', autocomplete: 'current-password' })}
${field({ name: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', hint: passwordHint })}
<button type="submit">Change password</button>
</form>
</section>
${accountSecuritySections()}
<section aria-labelledby="links-heading">
<h2 id="links-heading">Sign-in providers</h2>
<p class="form-alert" role="alert" data-links-alert></p>
${linkRows}
${
  linkable.length
    ? `<ul class="providers">${linkable.map((app) => providerButton(app, 'Link')).join('')}</ul>`
    : ''
}
</section>
<section aria-labelledby="sign-out-heading">
<h2 id="sign-out-heading">Sign out</h2>
<p><button type="button" class="secondary" data-sign-out>Sign out</button></p>
</section>`;
    return htmlResult(
      200,
      layout({
        title: 'Your account',
        siteName: site.name,
        data: {
          page: 'account',
          site: site.slug,
          user: String(user.id),
          username: user.username,
          email: user.email,
          'first-name': user.first_name,
          'last-name': user.last_name,
          account: `/account${siteQuery(site)}`,
          'sign-in': `/sign-in${siteQuery(site)}`,
        },
        body,
      }),
    );
  });
}

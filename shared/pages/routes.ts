import { errors, json } from '../api/responses';
import type { ResponseDef, RouteDef } from '../api/route';

/**
 * The hosted pages (pages/, docs/pages.md): HTML for a person's browser, built on the public API. The pages answer
 * their own errors as HTML pages with the right status (never JSON), so their statuses are declared as HTML here;
 * the one JSON route, the site's public name, answers errors in the `detail` envelope like any API route.
 */
const page = { group: 'pages', scope: 'platform', permission: 'public' } as const;

const html = { type: 'string' } as const;

function htmlPage(description: string): ResponseDef {
  return { description, schema: html, contentType: 'text/html' };
}

const refused = {
  400: htmlPage(
    'A page explaining what is wrong with the link (a `return_to` outside the allowlist, a bad site)',
  ),
  404: htmlPage('A page saying that the site or link does not exist'),
};

const siteName = {
  type: 'object',
  required: ['slug', 'name'],
  properties: { slug: { type: 'string' }, name: { type: 'string' } },
  additionalProperties: false,
} as const;

export const pageRoutes = [
  {
    ...page,
    operationId: 'invitationPage',
    method: 'GET',
    path: '/invitations/{token}',
    summary:
      "The invitation e-mail's link: who invites to which organization, and the form that accepts (names and password)",
    responses: {
      200: htmlPage('The invitation and its form'),
      ...refused,
      410: htmlPage('The invitation was already accepted, or its link expired'),
      429: htmlPage('Too many failed attempts from this address: try again later'),
    },
  },
  {
    ...page,
    operationId: 'signInPage',
    method: 'GET',
    path: '/sign-in',
    summary: "A site's sign-in page: username or e-mail and password, and a button per login provider",
    responses: { 200: htmlPage('The sign-in page'), ...refused },
  },
  {
    ...page,
    operationId: 'passwordResetPage',
    method: 'GET',
    path: '/reset-password',
    summary:
      "A forgotten password: the address to send a reset link to, or, from the e-mail's link (the token after `#`), the new password",
    responses: { 200: htmlPage('The reset page'), ...refused },
  },
  {
    ...page,
    operationId: 'signUpPage',
    method: 'GET',
    path: '/sign-up',
    summary: 'Make an account (when the platform allows sign-up): e-mail address, names and password',
    responses: {
      200: htmlPage('The sign-up page'),
      ...refused,
      403: htmlPage('Sign-up is closed on this platform'),
    },
  },
  {
    ...page,
    operationId: 'verifyEmailPage',
    method: 'GET',
    path: '/verify-email',
    summary: "The link that confirms an account's e-mail address (the token after `#`)",
    responses: { 200: htmlPage('The confirmation page'), ...refused },
  },
  {
    ...page,
    operationId: 'signInCallbackPage',
    method: 'GET',
    path: '/sign-in/callback',
    summary:
      "Where a login provider sends the browser back: the page completes the provider's sign-in or link",
    responses: { 200: htmlPage('The page that completes the sign-in'), ...refused },
  },
  {
    ...page,
    operationId: 'accountPage',
    method: 'GET',
    path: '/account',
    summary: 'The signed-in person: who they are, password change, linked providers, sign-out',
    responses: {
      200: htmlPage('The account page'),
      303: { description: 'Not signed in: to the sign-in page, which comes back here' },
      ...refused,
    },
  },
  {
    ...page,
    operationId: 'pageAsset',
    method: 'GET',
    path: '/pages/{asset}',
    summary: "The pages' one script and one style sheet",
    params: {
      type: 'object',
      properties: { asset: { type: 'string', minLength: 1, maxLength: 100 } },
    },
    responses: {
      200: { description: 'The asset, with its own content type', schema: html, contentType: '*/*' },
      ...errors(400, 404),
    },
  },
  {
    ...page,
    operationId: 'consolePage',
    method: 'GET',
    path: '/console/',
    summary: 'The console: a web app over the public API (sign in, data tables, people)',
    responses: {
      200: htmlPage('The console page (its script and style sheet are built, hashed assets)'),
      ...errors(404),
    },
  },
  {
    ...page,
    operationId: 'consoleAsset',
    method: 'GET',
    path: '/console/assets/{asset}',
    summary: "The console's built script and style sheet (content-hashed names, cached for a year)",
    params: {
      type: 'object',
      properties: { asset: { type: 'string', minLength: 1, maxLength: 100 } },
    },
    responses: {
      200: { description: 'The asset, with its own content type', schema: html, contentType: '*/*' },
      ...errors(400, 404),
    },
  },
  {
    group: 'pages',
    scope: 'site',
    permission: 'rule:site-visitor',
    operationId: 'siteName',
    method: 'GET',
    path: '/api/pages/site/',
    summary: "The request's site as login pages show it: its slug and name (public)",
    responses: { 200: json('The site', siteName), ...errors(400, 401, 404) },
  },
] as const satisfies readonly RouteDef[];

/**
 * The pages' HTML: plain template-literal functions. Everything that is not this file's own markup goes through
 * `esc` (text and attribute values alike), so a tenant's organization, site or provider name is always text.
 */

const entities: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** HTML-escapes a value for text or a quoted attribute. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (char) => entities[char] ?? char);
}

/** An icon URL a page may show: https only (the Content-Security-Policy allows no other remote image). */
export function safeIconUrl(icon: unknown): string | null {
  if (typeof icon !== 'string' || icon.length > 2000) return null;
  try {
    const url = new URL(icon);
    return url.protocol === 'https:' && !url.username && !url.password ? url.toString() : null;
  } catch {
    return null;
  }
}

/** The pages' one policy: no inline script or style, nothing from another origin but https images. */
export const contentSecurityPolicy =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; form-action 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; connect-src 'self'";

/** The headers of every page: the policy, no framing, no sniffing, no referrer (an invitation URL is a secret). */
export const pageHeaders: Readonly<Record<string, string>> = {
  'content-security-policy': contentSecurityPolicy,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export interface Layout {
  /** The page's title (the site's name is added). */
  title: string;
  /** Shown at the top of every page: the site's name, or the organization's on an invitation. */
  siteName: string;
  /** Values for pages.js, as `data-*` attributes of `<body>`. */
  data?: Record<string, string | null | undefined>;
  body: string;
}

/** The product's name where no site is named. */
export const productName = 'Tenantbase';

export function layout({ title, siteName, data = {}, body }: Layout): string {
  const attributes = Object.entries(data)
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .map(([name, value]) => ` data-${name}="${esc(value)}"`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)} · ${esc(siteName)}</title>
<link rel="stylesheet" href="/pages/pages.css">
<script src="/pages/pages.js" defer></script>
</head>
<body${attributes}>
<header class="banner"><p class="site-name">${esc(siteName)}</p></header>
<main id="main">
${body}
</main>
</body>
</html>
`;
}

/** A form field with its label, hint and the place for the API's message about it. */
export function field(options: {
  name: string;
  label: string;
  type?: string;
  autocomplete: string;
  value?: string;
  hint?: string;
  required?: boolean;
}): string {
  const { name, label, type = 'text', autocomplete, value, hint, required = true } = options;
  const described = [hint ? `${name}-hint` : '', `${name}-error`].filter(Boolean).join(' ');
  return `<div class="field">
<label for="${esc(name)}">${esc(label)}</label>
${hint ? `<p class="hint" id="${esc(name)}-hint" aria-live="polite">${esc(hint)}</p>` : ''}
<input id="${esc(name)}" name="${esc(name)}" type="${esc(type)}" autocomplete="${esc(autocomplete)}"${
    value !== undefined ? ` value="${esc(value)}"` : ''
  }${required ? ' required' : ''} aria-describedby="${esc(described)}">
<p class="field-error" id="${esc(name)}-error"></p>
</div>`;
}

/** The place for a form's own message (not about one field). */
export const formAlert = '<p class="form-alert" role="alert" data-form-alert></p>';

export const noscript =
  '<noscript><p class="notice">This page needs JavaScript to send the form to the server.</p></noscript>';

/** A page that only explains something, with a way on. */
export function messagePage(options: {
  title: string;
  siteName: string;
  message: string;
  link?: { href: string; text: string };
}): string {
  const { title, siteName, message, link } = options;
  return layout({
    title,
    siteName,
    body: `<h1>${esc(title)}</h1>
<p>${esc(message)}</p>
${link ? `<p><a class="button-link" href="${esc(link.href)}">${esc(link.text)}</a></p>` : ''}`,
  });
}

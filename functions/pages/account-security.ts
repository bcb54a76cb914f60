import { field, formAlert } from './html';

/**
 * The account page's security sections (docs/pages.md, "Account"): the e-mail address, the second factor and the
 * sessions. The page renders their frame; the script reads the factor's state and the sessions from the API with
 * the person's own session and fills them in (pages/assets/pages.js), and every change is a request of the browser.
 * Field names are the page's own where another form of the page already uses the API's (`current_password`).
 */
export function accountSecuritySections(): string {
  return `<section aria-labelledby="email-heading">
<h2 id="email-heading">Change your e-mail address</h2>
<p>A link is sent to the new address; your address changes once the link is followed.</p>
<form id="email-form" novalidate>
${formAlert}
${field({ name: 'email', label: 'New e-mail address', type: 'email', autocomplete: 'email' })}
${field({ name: 'email_password', label: 'Your password, to confirm the change', type: 'password', autocomplete: 'current-password' })}
<button type="submit">Send the link</button>
</form>
</section>
<section aria-labelledby="factor-heading">
<h2 id="factor-heading">Second factor</h2>
<p data-factor-status>Reading your second factor…</p>
<p class="form-alert" role="alert" data-factor-alert></p>
<p><button type="button" data-factor-start hidden>Set up an authenticator app</button></p>
<form id="factor-confirm-form" novalidate hidden>
<p>Scan this code with your authenticator app, or type the key into it. Then enter the code the app shows.</p>
<p><img data-factor-qr alt="QR code of the key for your authenticator app" width="200" height="200"></p>
<p>Key: <code data-factor-secret></code></p>
${formAlert}
${field({ name: 'factor_code', label: 'Code from the app', autocomplete: 'one-time-code' })}
<button type="submit">Turn on the second factor</button>
</form>
<div data-recovery hidden>
<p><strong>Your recovery codes.</strong> Each one signs in once in place of a code from the app. Keep them somewhere
safe: they are not shown again.</p>
<ul class="recovery-codes" data-recovery-codes></ul>
</div>
<form id="factor-remove-form" novalidate hidden>
${formAlert}
${field({ name: 'factor_password', label: 'Password to turn it off', type: 'password', autocomplete: 'current-password' })}
<button type="submit" class="secondary">Turn off the second factor</button>
</form>
</section>
<section aria-labelledby="sessions-heading">
<h2 id="sessions-heading">Where you are signed in</h2>
<p class="form-alert" role="alert" data-sessions-alert></p>
<ul class="sessions" data-sessions></ul>
<p><button type="button" class="secondary" data-end-others>Sign out everywhere else</button></p>
</section>`;
}

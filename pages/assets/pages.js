// The hosted pages' one script (docs/pages.md). It sends what a person does to the public API, as any client
// would, with the browser's session cookie; it never holds a token. No inline script: the pages' policy forbids it.

(() => {
  const data = document.body.dataset;
  const site = data.site || '';

  /** One API call: JSON in, JSON out, the page's site as X-Site. */
  async function api(method, path, body) {
    const headers = { accept: 'application/json' };
    if (site) headers['x-site'] = site;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response;
    try {
      response = await fetch(path, {
        method,
        headers,
        credentials: 'same-origin',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      return {
        status: 0,
        body: { detail: 'The server could not be reached. Check your connection and try again.' },
      };
    }
    const text = await response.text();
    let parsed = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = {};
    }
    return { status: response.status, body: parsed };
  }

  /** The first message of an API error body: `detail`, `message`, or the first field's first message. */
  function messageOf(body, fallback) {
    if (body && typeof body.detail === 'string') return body.detail;
    if (body && typeof body.message === 'string') return body.message;
    return fallback;
  }

  function clearErrors(form) {
    for (const element of form.querySelectorAll('.field-error')) element.textContent = '';
    for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
    const alert = form.querySelector('[data-form-alert]');
    if (alert) alert.textContent = '';
  }

  /** Shows a 400's messages at their fields, anything else at the form; focuses the first. */
  function showErrors(form, answer, fallback) {
    const body = answer.body || {};
    let first = null;
    if (answer.status === 400 && body && typeof body === 'object' && !body.detail) {
      for (const [name, messages] of Object.entries(body)) {
        const input = form.querySelector(`[name="${CSS.escape(name)}"]`);
        const error = form.querySelector(`#${CSS.escape(name)}-error`);
        const text = Array.isArray(messages) ? messages.join(' ') : String(messages);
        if (input && error) {
          error.textContent = text;
          input.setAttribute('aria-invalid', 'true');
          first ??= input;
        }
      }
    }
    if (!first) {
      const alert = form.querySelector('[data-form-alert]');
      if (alert) alert.textContent = messageOf(body, fallback);
      const input = form.querySelector('input');
      if (input) input.focus();
      return;
    }
    first.focus();
  }

  function values(form) {
    return Object.fromEntries(new FormData(form).entries());
  }

  function busy(form, on) {
    const button = form.querySelector('button[type="submit"]');
    if (button) button.disabled = on;
    form.setAttribute('aria-busy', on ? 'true' : 'false');
  }

  /**
   * Live feedback on a new password from the API's own policy (POST /api/cloud/users/password-check/, the same
   * rule and the same known words as where the password is set): its message once typing pauses. No rule is
   * copied here; when the check cannot answer (too many checks, no network), the hint stays and submit decides.
   */
  function passwordFeedback(input, words) {
    const hint = document.getElementById(`${input.id}-hint`);
    if (!hint) return;
    const initial = hint.textContent;
    let timer;
    let latest = 0;
    const show = (text, verdict) => {
      hint.textContent = text;
      if (verdict) hint.dataset.verdict = verdict;
      else delete hint.dataset.verdict;
    };
    // On submit the API answers at the field: no check still pending or shown may contradict it.
    input.form.addEventListener('submit', () => {
      clearTimeout(timer);
      latest += 1;
      show(initial);
    });
    input.addEventListener('input', () => {
      clearTimeout(timer);
      const password = input.value;
      const call = ++latest;
      if (password === '') {
        show(initial);
        return;
      }
      timer = setTimeout(async () => {
        const answer = await api('POST', '/api/cloud/users/password-check/', { password, ...words() });
        if (call !== latest) return;
        if (answer.status !== 200) show(initial);
        else if (answer.body.valid) show('This password meets the password policy.', 'good');
        else show(answer.body.password.join(' '), 'weak');
      }, 350);
    });
  }

  /** The words of the account a password is for, from the page and the form: the policy counts them as known. */
  function accountWords(form) {
    const named = (name, key) => {
      const input = form.querySelector(`[name="${name}"]`);
      return input ? input.value : data[key] || '';
    };
    return () => ({
      username: data.username || '',
      email: data.email || '',
      first_name: named('first_name', 'firstName'),
      last_name: named('last_name', 'lastName'),
    });
  }

  function go(target) {
    window.location.assign(target);
  }

  /** Starts a provider's sign-in (or link, when signed in): the state is remembered in this browser only. */
  /** Starts a login at the provider: its authorization URL, the login remembered for the callback. */
  async function providerUrl(provider, link, alertElement) {
    const redirectUri = `${window.location.origin}/sign-in/callback`;
    const answer = await api(
      'GET',
      `/api/auth/${encodeURIComponent(provider)}/redirect/?redirect_uri=${encodeURIComponent(redirectUri)}`,
    );
    if (answer.status !== 200) {
      if (alertElement) alertElement.textContent = messageOf(answer.body, 'The sign-in could not start.');
      return undefined;
    }
    const entry = { provider, site, link, returnTo: data.returnTo || '', after: data.after || '' };
    sessionStorage.setItem(`pages-login:${answer.body.state}`, JSON.stringify(entry));
    return answer.body.authorization_url;
  }

  async function startProvider(provider, link, alertElement) {
    const url = await providerUrl(provider, link, alertElement);
    if (url) go(url);
  }

  /**
   * A site's own provider asked for automatically: the page names the host it would go to and goes there only when
   * the person follows the link (never without a click).
   */
  async function confirmProvider(provider, alertElement) {
    const url = await providerUrl(provider, false, alertElement);
    if (!url) return;
    const section = document.querySelector('[data-leaving]');
    section.querySelector('[data-leaving-host]').textContent = new URL(url).host;
    const link = section.querySelector('[data-leaving-continue]');
    link.href = url;
    link.hidden = false;
  }

  function providerButtons(link, alertElement) {
    for (const button of document.querySelectorAll('button[data-provider]')) {
      button.addEventListener('click', () => {
        button.disabled = true;
        startProvider(button.dataset.provider, link, alertElement).finally(() => {
          button.disabled = false;
        });
      });
    }
  }

  function signOutButtons() {
    for (const button of document.querySelectorAll('[data-sign-out]')) {
      button.addEventListener('click', async () => {
        button.disabled = true;
        await api('DELETE', '/api/auth/session/');
        go(data.signIn || '/sign-in');
      });
    }
  }

  const pages = {
    invitation() {
      const form = document.getElementById('invitation-form');
      passwordFeedback(form.querySelector('#password'), accountWords(form));
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        clearErrors(form);
        busy(form, true);
        const body = values(form);
        const accepted = await api(
          'POST',
          `/api/cloud/invitations/${encodeURIComponent(data.token)}/accept/`,
          body,
        );
        if (accepted.status !== 200) {
          busy(form, false);
          showErrors(form, accepted, 'The invitation could not be accepted.');
          return;
        }
        const session = await api('POST', '/api/auth/session/', {
          username: data.email,
          password: body.password,
        });
        if (session.status !== 200) {
          busy(form, false);
          showErrors(
            form,
            session,
            'You joined, but signing in failed: sign in with your e-mail and new password.',
          );
          return;
        }
        const organization = accepted.body?.organization?.slug;
        go(
          data.intoConsole && organization
            ? `${data.intoConsole}${encodeURIComponent(organization)}`
            : data.after || '/account',
        );
      });
    },

    'sign-in'() {
      // The second step of a sign-in whose password was right, for an account with a second factor: a TOTP code
      // (six digits) or a recovery code, with the short-lived token the first step answered.
      const secondFactor = (passwordForm, mfaToken) => {
        const form = document.getElementById('second-factor-form');
        const alert = form.querySelector('[data-second-factor-alert]');
        const input = form.querySelector('#code');
        passwordForm.hidden = true;
        form.hidden = false;
        input.inputMode = 'numeric';
        input.focus();
        form.addEventListener('submit', async (event) => {
          event.preventDefault();
          clearErrors(form);
          alert.textContent = '';
          const code = input.value.trim().replace(/\s+/g, '');
          if (!code) {
            alert.textContent = 'Enter the code.';
            return;
          }
          busy(form, true);
          const body = /^\d{6}$/.test(code)
            ? { mfa_token: mfaToken, code }
            : { mfa_token: mfaToken, recovery_code: code };
          const answer = await api('POST', '/api/auth/session/mfa/', body);
          if (answer.status === 200) {
            go(data.returnTo || data.after || '/account');
            return;
          }
          busy(form, false);
          input.value = '';
          input.focus();
          alert.textContent = messageOf(answer.body, 'The code could not be checked: sign in again.');
        });
      };
      const form = document.getElementById('sign-in-form');
      const alert = form.querySelector('[data-form-alert]');
      providerButtons(false, alert);
      signOutButtons();
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        clearErrors(form);
        busy(form, true);
        const answer = await api('POST', '/api/auth/session/', values(form));
        if (answer.status === 200) {
          go(data.returnTo || data.after || '/account');
          return;
        }
        busy(form, false);
        if (answer.status === 401 && answer.body && answer.body.code === 'mfa_required') {
          secondFactor(form, answer.body.mfa_token);
          return;
        }
        if (answer.status === 401)
          answer.body = { detail: 'The username, e-mail or password is not correct.' };
        showErrors(form, answer, 'Signing in failed.');
      });
      if (data.autoRedirect) startProvider(data.autoRedirect, false, alert);
      else if (data.autoConfirm) confirmProvider(data.autoConfirm, alert);
    },

    'password-reset'() {
      const requestForm = document.getElementById('reset-request-form');
      const confirmForm = document.getElementById('reset-confirm-form');
      // The e-mail's link carries the token after `#`: read it, then take it out of the address bar.
      const token = window.location.hash.slice(1);
      if (token) window.history.replaceState(null, '', window.location.pathname + window.location.search);
      if (!token) {
        requestForm.hidden = false;
        const sent = document.querySelector('[data-reset-sent]');
        requestForm.addEventListener('submit', async (event) => {
          event.preventDefault();
          clearErrors(requestForm);
          busy(requestForm, true);
          const answer = await api('POST', '/api/auth/password/reset/', values(requestForm));
          busy(requestForm, false);
          if (answer.status !== 202) {
            showErrors(requestForm, answer, 'The link could not be sent.');
            return;
          }
          requestForm.hidden = true;
          sent.textContent = answer.body.detail;
          sent.hidden = false;
        });
        return;
      }
      confirmForm.hidden = false;
      passwordFeedback(confirmForm.querySelector('#password'), () => ({}));
      confirmForm.addEventListener('submit', async (event) => {
        event.preventDefault();
        clearErrors(confirmForm);
        busy(confirmForm, true);
        const answer = await api('POST', '/api/auth/password/reset/confirm/', {
          token,
          password: confirmForm.querySelector('#password').value,
        });
        busy(confirmForm, false);
        if (answer.status === 200) {
          confirmForm.hidden = true;
          const done = document.querySelector('[data-reset-done]');
          done.querySelector('[data-reset-done-message]').textContent = answer.body.detail;
          done.hidden = false;
          done.querySelector('a').focus();
          return;
        }
        if (answer.status === 400 && answer.body.token) {
          confirmForm.querySelector('[data-form-alert]').textContent = answer.body.token.join(' ');
          const again = document.createElement('a');
          again.href = data.resetPath || '/reset-password';
          again.textContent = 'Ask for a new link';
          confirmForm.querySelector('[data-form-alert]').append(' ', again);
          return;
        }
        showErrors(confirmForm, answer, 'The password could not be changed.');
      });
    },

    'sign-up'() {
      const form = document.getElementById('sign-up-form');
      const sent = document.querySelector('[data-sign-up-sent]');
      passwordFeedback(form.querySelector('#password'), () => ({
        email: form.querySelector('#email').value,
        first_name: form.querySelector('#first_name').value,
        last_name: form.querySelector('#last_name').value,
      }));
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        clearErrors(form);
        busy(form, true);
        const answer = await api('POST', '/api/auth/signup/', values(form));
        busy(form, false);
        if (answer.status !== 202) {
          showErrors(form, answer, 'The account could not be made.');
          return;
        }
        form.hidden = true;
        sent.textContent = answer.body.detail;
        sent.hidden = false;
      });
    },

    async 'verify-email'() {
      const status = document.querySelector('[data-verify-status]');
      const token = window.location.hash.slice(1);
      if (token) window.history.replaceState(null, '', window.location.pathname + window.location.search);
      const answer = await api('POST', '/api/auth/email/verify/', { token });
      if (answer.status === 200) {
        status.textContent = answer.body.detail;
        const signIn = document.querySelector('[data-verify-sign-in]');
        signIn.hidden = false;
        signIn.focus();
        return;
      }
      status.textContent =
        answer.body && Array.isArray(answer.body.token)
          ? answer.body.token.join(' ')
          : messageOf(answer.body, 'The address could not be confirmed.');
    },

    async callback() {
      const status = document.querySelector('[data-callback-status]');
      const failure = document.querySelector('[data-callback-error]');
      const fail = (message) => {
        status.hidden = true;
        failure.hidden = false;
        failure.querySelector('[data-callback-message]').textContent = message;
        document.title = `Sign-in failed · ${document.querySelector('.site-name').textContent}`;
        document.querySelector('h1').textContent = 'Sign-in failed';
        failure.querySelector('a').focus();
      };
      const params = new URLSearchParams(window.location.search);
      const code = params.get('code');
      const state = params.get('state');
      // The code is single use and the address bar should not keep it.
      window.history.replaceState(null, '', window.location.pathname);
      const key = `pages-login:${state}`;
      const stored = sessionStorage.getItem(key);
      sessionStorage.removeItem(key);
      if (!stored) {
        fail('This sign-in was not started in this browser, or it was already completed. Start again.');
        return;
      }
      const entry = JSON.parse(stored);
      const headersSite = entry.site || site;
      const headers = { accept: 'application/json', 'content-type': 'application/json' };
      if (headersSite) headers['x-site'] = headersSite;
      let answer;
      try {
        const response = await fetch(`/api/auth/${encodeURIComponent(entry.provider)}/token/`, {
          method: 'POST',
          headers,
          credentials: 'same-origin',
          body: JSON.stringify({ code, state, session: !entry.link }),
        });
        answer = { status: response.status, body: await response.json().catch(() => ({})) };
      } catch {
        answer = { status: 0, body: {} };
      }
      if (answer.status === 200) {
        const siteParam = headersSite ? `?site=${encodeURIComponent(headersSite)}` : '';
        go(entry.link ? `/account${siteParam}` : entry.returnTo || entry.after || data.after || '/account');
        return;
      }
      const body = answer.body || {};
      if (answer.status === 400 && body.state)
        fail('This sign-in took too long or was already used. Start again.');
      else if (answer.status === 409)
        fail(messageOf(body, 'This provider account is already linked to another account.'));
      else if (answer.status === 429)
        fail(messageOf(body, 'Too many attempts. Wait a little, then try again.'));
      else if (answer.status >= 500 || answer.status === 0)
        fail(
          'The sign-in provider could not be reached or gave an answer this site cannot use. Try again later.',
        );
      else fail(messageOf(body, Object.values(body).flat()[0] || 'The provider sign-in failed.'));
    },

    account() {
      const form = document.getElementById('password-form');
      passwordFeedback(form.querySelector('#password'), accountWords(form));
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        clearErrors(form);
        busy(form, true);
        const answer = await api('PATCH', `/api/cloud/users/${encodeURIComponent(data.user)}/`, values(form));
        busy(form, false);
        if (answer.status !== 200) {
          showErrors(form, answer, 'The password could not be changed.');
          return;
        }
        form.reset();
        const alert = form.querySelector('[data-form-alert]');
        alert.textContent = 'Your password was changed. Your other sessions have ended.';
      });
      const linksAlert = document.querySelector('[data-links-alert]');
      for (const button of document.querySelectorAll('[data-unlink]')) {
        button.addEventListener('click', async () => {
          button.disabled = true;
          const answer = await api(
            'DELETE',
            `/api/auth/social-accounts/${encodeURIComponent(button.dataset.unlink)}/`,
          );
          if (answer.status === 204) {
            go(data.account || '/account');
            return;
          }
          button.disabled = false;
          linksAlert.textContent = messageOf(answer.body, 'The provider could not be unlinked.');
        });
      }
      providerButtons(true, linksAlert);
      signOutButtons();
      emailChange();
      secondFactorSection();
      sessionsSection();
    },
  };

  /** A form's answer with the API's field renamed to the page's own (two forms of the page ask a password). */
  function renamed(answer, from, to) {
    if (answer.body && typeof answer.body === 'object' && answer.body[from]) {
      answer.body = { ...answer.body, [to]: answer.body[from] };
      delete answer.body[from];
    }
    return answer;
  }

  function emailChange() {
    const form = document.getElementById('email-form');
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      clearErrors(form);
      busy(form, true);
      const answer = await api('POST', '/api/auth/email/change/', {
        email: form.querySelector('#email').value.trim(),
        current_password: form.querySelector('#email_password').value,
      });
      busy(form, false);
      if (answer.status !== 202) {
        showErrors(
          form,
          renamed(answer, 'current_password', 'email_password'),
          'The change could not be asked.',
        );
        return;
      }
      form.reset();
      form.querySelector('[data-form-alert]').textContent = answer.body.detail;
    });
  }

  async function secondFactorSection() {
    const status = document.querySelector('[data-factor-status]');
    const alert = document.querySelector('[data-factor-alert]');
    const start = document.querySelector('[data-factor-start]');
    const confirmForm = document.getElementById('factor-confirm-form');
    const removeForm = document.getElementById('factor-remove-form');
    const shown = await api('GET', '/api/auth/mfa/');
    if (shown.status !== 200) {
      status.textContent = messageOf(shown.body, 'Your second factor could not be read.');
      return;
    }
    const on = shown.body.totp !== null;
    status.textContent = on
      ? `An authenticator app is set up; ${shown.body.recovery_codes_left} recovery codes are left.`
      : 'No second factor is set up: signing in asks for your password only.';
    start.hidden = on;
    removeForm.hidden = !on;
    start.addEventListener('click', async () => {
      start.disabled = true;
      alert.textContent = '';
      const enrolment = await api('POST', '/api/auth/mfa/totp/');
      start.disabled = false;
      if (enrolment.status !== 200) {
        alert.textContent = messageOf(enrolment.body, 'The second factor could not be set up.');
        return;
      }
      const qr = confirmForm.querySelector('[data-factor-qr]');
      qr.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrolment.body.qr_svg)}`;
      confirmForm.querySelector('[data-factor-secret]').textContent = enrolment.body.secret;
      status.textContent = 'Setting up an authenticator app: it is on once a code from it is confirmed.';
      start.hidden = true;
      confirmForm.hidden = false;
      confirmForm.querySelector('#factor_code').focus();
    });
    confirmForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      clearErrors(confirmForm);
      busy(confirmForm, true);
      const code = confirmForm.querySelector('#factor_code').value.replace(/\s+/g, '');
      const answer = await api('POST', '/api/auth/mfa/totp/confirm/', { code });
      busy(confirmForm, false);
      if (answer.status !== 200) {
        showErrors(confirmForm, renamed(answer, 'code', 'factor_code'), 'The code could not be checked.');
        return;
      }
      confirmForm.hidden = true;
      const list = document.querySelector('[data-recovery-codes]');
      list.replaceChildren(
        ...answer.body.recovery_codes.map((recoveryCode) => {
          const item = document.createElement('li');
          const text = document.createElement('code');
          text.textContent = recoveryCode;
          item.append(text);
          return item;
        }),
      );
      document.querySelector('[data-recovery]').hidden = false;
      status.textContent = 'An authenticator app is set up: signing in now asks for a code from it.';
      status.setAttribute('tabindex', '-1');
      status.focus();
    });
    removeForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      clearErrors(removeForm);
      busy(removeForm, true);
      const answer = await api('DELETE', '/api/auth/mfa/totp/', {
        password: removeForm.querySelector('#factor_password').value,
      });
      busy(removeForm, false);
      if (answer.status !== 204) {
        showErrors(
          removeForm,
          renamed(answer, 'password', 'factor_password'),
          'The second factor could not be turned off.',
        );
        return;
      }
      go(data.account || '/account');
    });
  }

  async function sessionsSection() {
    const list = document.querySelector('[data-sessions]');
    const alert = document.querySelector('[data-sessions-alert]');
    const show = async () => {
      const answer = await api('GET', '/api/auth/sessions/');
      if (answer.status !== 200) {
        alert.textContent = messageOf(answer.body, 'Your sessions could not be read.');
        return;
      }
      list.replaceChildren(...answer.body.results.map(sessionItem));
    };
    // Every text from the session (its user agent is whatever a client sent) goes in as text, never as markup.
    const sessionItem = (session) => {
      const item = document.createElement('li');
      const what = document.createElement('span');
      const name = document.createElement('strong');
      name.textContent = `${session.kind === 'browser' ? 'A browser' : 'An app (tokens)'}${session.current ? ', this one' : ''}`;
      const detail = document.createElement('span');
      detail.className = 'muted';
      const since = new Date(session.created_at).toLocaleString();
      detail.textContent = ` · ${session.user_agent || 'unknown device'} · ${session.client_ip || 'unknown address'} · since ${since}`;
      what.append(name, detail);
      item.append(what);
      if (!session.current) {
        const end = document.createElement('button');
        end.type = 'button';
        end.className = 'secondary';
        end.textContent = 'End';
        end.setAttribute('aria-label', `End the session since ${since}`);
        end.addEventListener('click', async () => {
          end.disabled = true;
          const answer = await api('DELETE', `/api/auth/sessions/${encodeURIComponent(session.id)}/`);
          if (answer.status !== 204)
            alert.textContent = messageOf(answer.body, 'The session could not be ended.');
          await show();
        });
        item.append(end);
      }
      return item;
    };
    document.querySelector('[data-end-others]').addEventListener('click', async () => {
      const answer = await api('POST', '/api/auth/sessions/end-others/');
      alert.textContent =
        answer.status === 200
          ? `${answer.body.ended} other session${answer.body.ended === 1 ? '' : 's'} ended.`
          : messageOf(answer.body, 'The other sessions could not be ended.');
      await show();
    });
    await show();
  }

  const page = pages[data.page];
  if (page) page();
})();

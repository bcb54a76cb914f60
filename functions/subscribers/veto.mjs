/**
 * Example subscriber that refuses users whose e-mail address is not from an allowed domain (example.org here).
 * Throwing an error refuses PRE_USER_CREATE: the user is not saved and the caller gets the error's message.
 */
const allowedDomain = '@example.org';

export async function handler(event) {
  const email = String(event.data?.email ?? '');
  if (!email.toLowerCase().endsWith(allowedDomain)) {
    throw new Error(`Only ${allowedDomain} addresses may sign up.`);
  }
  return { allowed: true };
}

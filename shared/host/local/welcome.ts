/** A word as one argument of a POSIX shell command: in single quotes, each single quote closed, escaped, reopened. */
export function shellWord(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Reads a JSON document from stdin and prints its `access` field: the access token of a sign-in's answer. */
const accessOf = `node -pe 'JSON.parse(require("fs").readFileSync(0)).access'`;

/**
 * The shell commands `npm start` prints: a sign-in whose access token goes to `TOKEN`, then a call with it, as the
 * README's "Using it locally" does. With the password (a generated one, on the start that created it) it is filled
 * in; without it, the body is built from `ADMIN_PASSWORD` in the shell the commands run in, whatever characters the
 * password has, so that the password itself is never printed.
 */
export function signInCommands(baseUrl: string, username: string, password: string | undefined): string[] {
  const body =
    password === undefined
      ? `"$(node -pe 'JSON.stringify({username: process.argv[1], password: process.env.ADMIN_PASSWORD})' ${shellWord(username)})"`
      : shellWord(JSON.stringify({ username, password }));
  return [
    `TOKEN=$(curl -s -X POST ${baseUrl}/api/auth/jwt/token/ -H 'content-type: application/json' \\`,
    `  -d ${body} | ${accessOf})`,
    `curl -s ${baseUrl}/api/cloud/users/me/ -H "authorization: Bearer $TOKEN"`,
  ];
}

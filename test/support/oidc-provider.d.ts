// oidc-provider ships no types; the test fixture uses a small part of it (test/support/identity-provider.ts).
declare module 'oidc-provider' {
  const Provider: any;
  export default Provider;
}

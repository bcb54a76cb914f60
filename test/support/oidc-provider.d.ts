// oidc-provider ships no types; the test fixture uses a small part of it (test/support/identity-provider.ts).
declare module 'oidc-provider' {
  // biome-ignore lint/suspicious/noExplicitAny: an untyped test dependency
  const Provider: any;
  export default Provider;
}

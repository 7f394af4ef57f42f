import type * as Argon2 from '@node-rs/argon2';

// @node-rs/argon2 is a native addon: loading it (the addon and its binding) cost a restart about as
// much as a small module graph, for a hash most starts never compute (a first start's demo merchant,
// sign-ins, password changes, invitations). Loaded on the first hash or verification instead.
let argon2: Promise<typeof Argon2> | undefined;
const loadArgon2 = (): Promise<typeof Argon2> => (argon2 ??= import('@node-rs/argon2'));

/** argon2 `hash` (PHC string), the addon loaded on first use. */
export async function argonHash(password: string | Uint8Array, options?: Argon2.Options): Promise<string> {
  return (await loadArgon2()).hash(password, options);
}

/** argon2 `verify` of a PHC string, the addon loaded on first use. */
export async function argonVerify(hashed: string | Uint8Array, password: string | Uint8Array): Promise<boolean> {
  return (await loadArgon2()).verify(hashed, password);
}

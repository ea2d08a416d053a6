/**
 * Worker entries that take their argument in their own module URL (`pinned-prettier.js?dir=…`): the
 * runtime builds the URL of the entry beside the calling module (`.ts` under tsx, `.js` when built),
 * and the entry reads its parameters back.
 */
export function workerModuleUrl(callerUrl: string, name: string, params: Readonly<Record<string, string>>): string {
  const url = new URL(callerUrl.endsWith('.ts') ? `./${name}.ts` : `./${name}.js`, callerUrl);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

/** The named parameters of this worker entry's URL; throws naming the one that is missing. */
export function workerParams<const K extends string>(ownUrl: string, names: readonly K[]): Record<K, string> {
  const params = new URL(ownUrl).searchParams;
  const out = {} as Record<K, string>;
  for (const name of names) {
    const value = params.get(name);
    if (!value) throw new Error(`${new URL(ownUrl).pathname}: the module URL carries no ?${name}=`);
    out[name] = value;
  }
  return out;
}

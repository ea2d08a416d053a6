/**
 * Markdown's code blocks, as the dprint CLI formats them: the markdown plugin hands each fenced block
 * to its host as `file.<tag>` (```json → `file.json`), and the host formats it with whichever plugin
 * the config lists claims that file, or leaves it as written when none does. formatbox does the same
 * with the plugins it ships. A block a listed plugin formatbox does not run may claim (a plugin URL,
 * the repository's own .wasm) cannot get the CLI's bytes, so the file is not formatted, saying why.
 */
import type { FormatRequest } from '@dprint/formatter';

/** The key of the adapter settings that carries the config's other plugins to the markdown adapter. */
export const EMBEDDED_SETTINGS_KEY = '$formatboxEmbedded';

export interface EmbeddedPlugins {
  /** The shipped plugins the config lists, by dprint.json section, with the settings each gets. */
  plugins: Record<string, Record<string, unknown>>;
  /** Listed plugins formatbox does not run here, as written (or by dprint.json section). */
  unrun: string[];
}

/** What the official plugins claim, by the name in their URL (`plugins.dprint.dev/typescript-0.93.0.wasm`). */
const KNOWN_EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  markdown: ['md', 'mkd', 'mdwn', 'mkdn', 'mdown', 'markdown'],
  json: ['json', 'jsonc'],
  toml: ['toml'],
  dockerfile: ['dockerfile'],
  typescript: ['ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs', 'mts', 'cts'],
  malva: ['css', 'scss', 'sass', 'less'],
  markup_fmt: ['html', 'vue', 'svelte', 'astro', 'jinja', 'jinja2', 'twig', 'njk', 'vto'],
  pretty_yaml: ['yaml', 'yml'],
  pretty_graphql: ['graphql', 'gql'],
  ruff: ['py', 'pyi'],
  jupyter: ['ipynb'],
  biome: ['ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs', 'mts', 'cts', 'json', 'jsonc', 'css', 'graphql', 'gql'],
};

/** `typescript` from `https://plugins.dprint.dev/typescript-0.93.0.wasm` (or `.../g-plane/malva-v0.11.1.wasm`). */
export function pluginNameOf(specifier: string): string | undefined {
  const match = /(?:^|\/)([a-z][a-z0-9_]{0,39})-v?\d+\.\d+\.\d+\.wasm(?:@[0-9a-f]{64})?$/i.exec(specifier);
  return match?.[1]?.toLowerCase();
}

export function splitEmbedded(settings: Record<string, unknown>): { settings: Record<string, unknown>; embedded?: EmbeddedPlugins } {
  if (!Object.hasOwn(settings, EMBEDDED_SETTINGS_KEY)) return { settings };
  const { [EMBEDDED_SETTINGS_KEY]: embedded, ...rest } = settings;
  return { settings: rest, embedded: embedded as EmbeddedPlugins };
}

/** A plugin formatbox runs for code blocks: whether it claims a file, and the call that formats it. */
export interface EmbeddedHost {
  claims(filePath: string): boolean;
  format(request: FormatRequest): string;
}

/**
 * The host formatter for one Markdown file: a block goes to the first shipped plugin that claims it;
 * a block an unrun plugin may claim is left as written and named in `blocked`.
 */
export function hostFormatter(hosts: readonly EmbeddedHost[], unrun: readonly string[], blocked: string[]): (request: FormatRequest) => string {
  return (request) => {
    const host = hosts.find((candidate) => candidate.claims(request.filePath));
    if (host) return host.format(request);
    const extension = request.filePath.slice(request.filePath.lastIndexOf('.') + 1).toLowerCase();
    for (const specifier of unrun) {
      const name = Object.hasOwn(KNOWN_EXTENSIONS, specifier) ? specifier : pluginNameOf(specifier);
      const known = name ? KNOWN_EXTENSIONS[name] : undefined;
      if (!known || known.includes(extension)) {
        blocked.push(`a \`\`\`${extension.replace(/[^a-z0-9_+-]/g, '?').slice(0, 24)} code block, which the dprint CLI gives to ${name ? `the ${name} plugin` : 'another plugin'} the config lists; formatbox does not run it here`);
        break;
      }
    }
    return request.fileText;
  };
}

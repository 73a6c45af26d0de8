/*\
The owner's configuration of a process that runs turns on Node.js (the server edition, the
headless `--agent-send` command): what the wiki's content may make this process do with its
secrets, its programs and its network. It is decided by the person who starts the process,
never by a tiddler, so no writer, reader, web page or model can widen it (DESIGN 8, issue 23):
the environment variable TIDDLYAGENT_CONFIG (a file's path, or the JSON itself) or the listen
parameter `agent-config=<file>`. A file inside the wiki folder is refused: TiddlyWiki can be
told ($:/config/FileSystemPaths) to save tiddlers anywhere in that folder.

    {
      "keys": { "<api-key-name>": { "env": "VARIABLE", "origins": ["https://api.example.com"] } },
      "allowHosts": ["127.0.0.1:11434", "intranet.example"],
      "hosts": ["wiki.example.com"],
      "mcpCommands": [{ "command": "npx", "args": ["-y", "some-mcp-server"], "env": ["GITHUB_TOKEN"] }],
      "builtinKeys": true
    }

- keys: which key names the wiki may use, the environment variable each is read from (default:
  the name, or its usual form OPENAI_API_KEY), and the origins it may be sent to. Built in
  (unless builtinKeys is false): the shipped profiles' keys, each bound to its provider's origin.
- allowHosts: private, loopback or link-local hosts (`host` or `host:port`) that calls from this
  process (models, Test the connection, MCP over HTTP, web-fetch) may reach; an origin a key is
  bound to may be reached too. The wiki's own server is never reached.
- hosts: names the server answers to besides its `host`, loopback names and IP literals.
- mcpCommands: the stdio MCP servers that may be started, command and arguments exactly, and the
  environment variables each may be given (`mcp-env`).
Node modules are required on first use only (this module is part of the page's bundle).
\*/
import { parseAllowHosts, type AllowedHost } from '../../tools/web-fetcher';
import { ensureWebGlobals } from './host';

export const CONFIG_ENV = 'TIDDLYAGENT_CONFIG';

export interface KeyRule {
  /** Environment variables tried in order. */
  env: string[];
  /** Origins (`https://api.openai.com`) the key may be sent to. */
  origins: string[];
}

export interface McpCommandRule {
  command: string;
  args: string[];
  env: string[];
}

export interface OwnerPolicy {
  keys: Map<string, KeyRule>;
  allowHosts: AllowedHost[];
  hosts: string[];
  mcpCommands: McpCommandRule[];
  /** Where the configuration came from, for messages ("built-in defaults" when nothing was given). */
  source: string;
  /** Why the owner's configuration could not be used (then only the built-in keys apply). */
  problem?: string;
}

/** The keys of the shipped provider profiles, each bound to its provider's own origin. */
const BUILTIN_KEYS: Record<string, string> = {
  'openai-api-key': 'https://api.openai.com',
  'anthropic-api-key': 'https://api.anthropic.com',
  'gemini-api-key': 'https://generativelanguage.googleapis.com',
};

/** Thrown where a key would be used against the owner's configuration: the message says how to allow it. */
export class KeyRefused extends Error {
  override name = 'KeyRefused';
  /** What the user can do, in their language (engine/error-kinds.ts): ask the owner. */
  readonly hint = 'key-refused';
}

/** An environment variable's usual form: shells cannot set `openai-api-key`, so `OPENAI_API_KEY` too. */
export function envVariableNames(name: string): string[] {
  const usual = name.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  return usual === name ? [name] : [name, usual];
}

/** The origin of a URL (`https://host:port`), or '' when it is not an http(s) URL. */
export function originOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : '';
  } catch {
    return '';
  }
}

/** Reads and checks a configuration; throws an Error saying what is wrong. */
export function parseOwnerPolicy(value: unknown, source: string): OwnerPolicy {
  ensureWebGlobals();
  const fail = (what: string): never => {
    throw new Error(`${source}: ${what}`);
  };
  if (!isRecord(value)) fail('the configuration must be a JSON object');
  const config = value as Record<string, unknown>;
  const known = ['keys', 'allowHosts', 'hosts', 'mcpCommands', 'builtinKeys'];
  const unknown = Object.keys(config).filter((k) => !known.includes(k));
  if (unknown.length) fail(`unknown setting ${unknown.map((k) => `"${k}"`).join(', ')} (known: ${known.join(', ')})`);
  const strings = (v: unknown, what: string): string[] =>
    v === undefined
      ? []
      : Array.isArray(v) && v.every((s) => typeof s === 'string' && s.trim())
        ? (v as string[]).map((s) => s.trim())
        : fail(`${what} must be a list of non-empty strings`);
  const keys = new Map<string, KeyRule>();
  if (config.builtinKeys !== false)
    for (const [name, origin] of Object.entries(BUILTIN_KEYS)) keys.set(name, { env: envVariableNames(name), origins: [origin] });
  if (config.keys !== undefined && !isRecord(config.keys)) fail('"keys" must be an object: key name → { "env", "origins" }');
  for (const [name, rule] of Object.entries((config.keys ?? {}) as Record<string, unknown>)) {
    if (!isRecord(rule)) fail(`keys["${name}"] must be an object with "origins" (and "env")`);
    const r = rule as Record<string, unknown>;
    const origins = strings(r.origins, `keys["${name}"].origins`).map((o) => originOf(o) || fail(`keys["${name}"].origins: "${o}" is not an http(s) origin`));
    if (!origins.length) fail(`keys["${name}"].origins must name at least one origin the key may be sent to`);
    const env =
      r.env === undefined
        ? envVariableNames(name)
        : typeof r.env === 'string' && r.env.trim()
          ? [r.env.trim()]
          : fail(`keys["${name}"].env must be the name of an environment variable`);
    keys.set(name, { env, origins });
  }
  const commands: McpCommandRule[] = [];
  if (config.mcpCommands !== undefined && !Array.isArray(config.mcpCommands)) fail('"mcpCommands" must be a list of { "command", "args", "env" }');
  for (const [i, entry] of ((config.mcpCommands ?? []) as unknown[]).entries()) {
    if (!isRecord(entry) || typeof entry.command !== 'string' || !entry.command.trim()) fail(`mcpCommands[${i}] must have a "command"`);
    const e = entry as Record<string, unknown>;
    const args =
      e.args === undefined
        ? []
        : Array.isArray(e.args) && e.args.every((a) => typeof a === 'string')
          ? (e.args as string[])
          : fail(`mcpCommands[${i}].args must be a list of strings`);
    commands.push({ command: (e.command as string).trim(), args, env: strings(e.env, `mcpCommands[${i}].env`) });
  }
  return {
    keys,
    allowHosts: parseAllowHosts(strings(config.allowHosts, '"allowHosts"').join(' ')),
    hosts: strings(config.hosts, '"hosts"').map((h) => h.toLowerCase()),
    mcpCommands: commands,
    source,
  };
}

let configuredPath: string | undefined;
let cached: { token: string; policy: OwnerPolicy } | undefined;

/** The listen parameter `agent-config=<file>` (the server plugin passes it on start). */
export function setOwnerConfigPath(file: string | undefined): void {
  configuredPath = file || undefined;
  cached = undefined;
}

/**
 * The owner's configuration of this process, read again when its source changes (a file is
 * stat-ed on each use: uses are requests, not deltas). A configuration that cannot be read
 * leaves only the built-in keys and says why in every refusal.
 */
export function ownerPolicy(): OwnerPolicy {
  ensureWebGlobals(); // URL, in TiddlyWiki's module sandbox under Node
  const fs = require('node:fs') as typeof import('node:fs');
  const path = require('node:path') as typeof import('node:path');
  const given = configuredPath ?? process.env[CONFIG_ENV]?.trim() ?? '';
  const inline = given.startsWith('{');
  let token = given;
  if (given && !inline) {
    try {
      token += `@${fs.statSync(given).mtimeMs}`;
    } catch {
      token += '@missing';
    }
  }
  if (cached?.token === token) return cached.policy;
  let policy: OwnerPolicy;
  const source = !given ? 'built-in defaults' : inline ? `${CONFIG_ENV} (JSON)` : path.resolve(given);
  try {
    if (!given) policy = parseOwnerPolicy({}, source);
    else if (inline) policy = parseOwnerPolicy(JSON.parse(given), source);
    else {
      const wikiPath = typeof $tw === 'undefined' ? undefined : ($tw.boot as { wikiPath?: string }).wikiPath;
      if (wikiPath && isWithin(path.resolve(given), path.resolve(wikiPath), path)) {
        throw new Error(
          `${source} is inside the wiki folder, where tiddlers can be saved ($:/config/FileSystemPaths); keep the TiddlyAgent configuration outside it`,
        );
      }
      policy = parseOwnerPolicy(JSON.parse(fs.readFileSync(given, 'utf8')), source);
    }
  } catch (e) {
    const problem = `The TiddlyAgent configuration (${source}) cannot be used: ${e instanceof Error ? e.message : String(e)}`;
    console.error(problem);
    policy = { ...parseOwnerPolicy({}, 'built-in defaults'), problem };
  }
  cached = { token, policy };
  return policy;
}

function isWithin(file: string, folder: string, path: typeof import('node:path')): boolean {
  const rel = path.relative(folder, file);
  return !!rel && !rel.startsWith('..') && !path.isAbsolute(rel);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const HOW_TO = `The server's owner decides this in the TiddlyAgent configuration (${CONFIG_ENV}; see "Who may do what" in the manual).`;

/**
 * The key named `name` for a request to `url`: read from the environment only when the owner
 * lists the name, and given only for an origin it is bound to (KeyRefused otherwise).
 * undefined: the key may be used but its variable is not set.
 */
export function ownerKey(policy: OwnerPolicy, name: string, url: string): string | undefined {
  const rule = policy.keys.get(name);
  if (!rule)
    throw new KeyRefused(
      `The key "${name}" is not one this server may use: only the keys its owner lists are read from its environment. ${policy.problem ?? HOW_TO}`,
    );
  const origin = originOf(url);
  if (!origin || !rule.origins.includes(origin)) {
    throw new KeyRefused(`The key "${name}" may be sent only to ${rule.origins.join(', ')}, not to ${origin || JSON.stringify(url)}. ${HOW_TO}`);
  }
  for (const variable of rule.env) {
    const value = process.env[variable];
    if (value) return value;
  }
  return undefined;
}

/** What a reader may know of a key: set, missing, or refused for this address; never its variable or value. */
export function ownerKeyState(policy: OwnerPolicy, name: string, url: string): 'set' | 'missing' | 'refused' {
  try {
    return ownerKey(policy, name, url) ? 'set' : 'missing';
  } catch {
    return 'refused';
  }
}

/** Every secret the owner lets this process read: what a result shown to a user is scrubbed of. */
export function ownerSecrets(policy: OwnerPolicy): string[] {
  const out = new Set<string>();
  for (const rule of policy.keys.values()) for (const variable of rule.env) if (process.env[variable]) out.add(process.env[variable]!);
  return [...out];
}

/** Why a stdio MCP server may not be started, or undefined when the owner listed it exactly (with every `mcp-env` name). */
export function commandRefusal(policy: OwnerPolicy, command: string, args: string[], env: string[]): string | undefined {
  const rule = policy.mcpCommands.find((r) => r.command === command && r.args.length === args.length && r.args.every((a, i) => a === args[i]));
  const entry = JSON.stringify({ command, args, ...(env.length ? { env } : {}) });
  if (!rule)
    return `the server's owner has not allowed this command to be started (to allow it, the owner adds ${entry} to "mcpCommands"). ${policy.problem ?? HOW_TO}`;
  const extra = env.filter((name) => !rule.env.includes(name));
  if (extra.length) return `the server's owner has not allowed the environment variable(s) ${extra.join(', ')} to be passed to this command. ${HOW_TO}`;
  return undefined;
}

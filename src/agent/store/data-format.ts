/*\
The data format: which shape of chats, messages, agents, journals and schedules a wiki holds.
The plugin's format is DATA_FORMAT (also in plugin.info as `tiddlyagent-data-format`); the
format a wiki's tiddlers were last brought to is the text of FORMAT_TIDDLER. On load, before
any chat is read, migrateData() runs each step between the two in order, then records the new
format, so a wiki made by an older version opens in a newer one with its chats intact. A wiki
without the tiddler was made by format 1 (the first versioned format: every release before it
wrote the same fields). A wiki of a newer format than the plugin is left untouched: the caller
says so; an older plugin must not rewrite what it does not know.
Each step changes only the fields it names and must be idempotent (a page and the server may
both run it on one wiki).
\*/
import { CONFIG, configValue } from './config';
import type { TiddlerFields } from './wiki-port';

export const DATA_FORMAT = 1;
export const FORMAT_TIDDLER = CONFIG.dataFormat;

/** The part of a wiki a migration needs. */
export interface FormatWiki {
  getFields(title: string): TiddlerFields | undefined;
  putTiddler(fields: TiddlerFields): void;
  filter(expression: string): string[];
}

export interface Migration {
  /** The format this step brings a wiki to (from the one before). */
  to: number;
  /** What it changes, for the log. */
  describe: string;
  apply(wiki: FormatWiki): void;
}

/** The steps from format 1 on. Format 1 is today's: no step yet. */
export const MIGRATIONS: readonly Migration[] = [];

export interface MigrationResult {
  from: number;
  to: number;
  applied: string[];
  /** The wiki's format is newer than this plugin's: nothing was changed. */
  newer: boolean;
}

/** The format the wiki's tiddlers are in (1 when it never recorded one). */
export function wikiFormat(wiki: FormatWiki): number {
  const text = configValue(wiki, FORMAT_TIDDLER);
  const n = text ? Number.parseInt(text, 10) : 1;
  return Number.isInteger(n) && n >= 1 ? n : 1;
}

/** Bring the wiki's tiddlers to `current`, step by step; record the format once there. */
export function migrateData(wiki: FormatWiki, steps: readonly Migration[] = MIGRATIONS, current = DATA_FORMAT): MigrationResult {
  const from = wikiFormat(wiki);
  if (from > current) return { from, to: from, applied: [], newer: true };
  const applied: string[] = [];
  for (const step of [...steps].sort((a, b) => a.to - b.to)) {
    if (step.to <= from || step.to > current) continue;
    step.apply(wiki);
    applied.push(`${step.to}: ${step.describe}`);
  }
  // Recorded only when it moved: a wiki of today's format gets no new tiddler on load (a
  // single-file wiki would open with unsaved changes).
  if (from !== current) wiki.putTiddler({ title: FORMAT_TIDDLER, text: String(current) });
  return { from, to: current, applied, newer: false };
}

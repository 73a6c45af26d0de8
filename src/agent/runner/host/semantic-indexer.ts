/*\
The semantic indexer: keeps the vector index (search/vector-index.ts) in step with the wiki
in the background, and answers wiki-search's queries by meaning (search/semantic.ts).

What is embedded: every non-system tiddler the agent may see (tools/visibility.ts), not
drafts, not binary (but a PDF's text, page by page: tools/documents.ts); chunked by search/chunks.ts. Which model: the provider profile named in
$:/config/tiddlyagent/semantic/profile, by its `embedding-model`. It runs while
$:/config/tiddlyagent/semantic/enabled is `yes` (Start; Cancel writes `no`).

It embeds what changed in batches, saving the index now and then into a VectorStore beside
the wiki (IndexedDB in a browser, a file in the server edition's agent-state/ folder; never a
tiddler), so a reload or restart goes on from the last save: only tiddlers whose fingerprint
differs are embedded again. A stored index that is damaged, from another format or another
model is rebuilt, and the status says why. Rate limits and server errors are retried with
backoff (engine/retry.ts, retry-after honored); a failure that stays, or vectors of the wrong
size, stop it with the error shown. Progress is written to a $:/temp status tiddler (hidden
from the agent, never saved).
\*/
import { defaultSleep, retryDelay } from '../../engine/retry';
import { createEmbeddingModel, type EmbeddingModel } from '../../providers/embeddings';
import { isProviderError, ProviderError } from '../../providers/errors';
import type { FetchFn } from '../../providers/types';
import { chunkTiddler, fingerprint } from '../../search/chunks';
import type { SemanticAnswer, SemanticPort } from '../../search/semantic';
import { VectorIndex } from '../../search/vector-index';
import { ChatStore } from '../../store/chat-store';
import { CONFIG, configValue } from '../../store/config';
import type { ProviderProfile } from '../../store/schemas';
import type { WikiPort } from '../../store/wiki-port';
import { isPdfTiddler, pdfChunks } from '../../tools/documents';
import { isBinaryType } from '../../tools/format';
import { isHiddenFromAgent } from '../../tools/visibility';
import { profileApiKey } from '../api-key';
import { ensureWebGlobals } from './host';

export const SEMANTIC_PROFILE = CONFIG.semanticProfile;
export const SEMANTIC_ENABLED = CONFIG.semanticEnabled;
export const SEMANTIC_STATUS = '$:/temp/tiddlyagent/semantic-index';

/** Chunks per embedding request. */
export const BATCH_CHUNKS = 64;
const SAVE_EVERY_MS = 5_000;
const RETRIES = 5;

/** Where the index is kept between runs. */
export interface VectorStore {
  /** Said in the settings: "IndexedDB in this browser", "agent-state/vectors.bin". */
  readonly where: string;
  load(): Promise<Uint8Array | undefined>;
  save(blob: ArrayBuffer): Promise<void>;
}

export interface IndexerHost {
  /** The whole wiki (the indexer itself decides what the agent may see). */
  wiki: WikiPort;
  fetch: FetchFn;
  /** The key for a call to `url` (may throw KeyRefused: the owner's rules, runner/host/owner-policy.ts). */
  getApiKey(name: string, url: string): string | undefined;
  keyHint: string;
  store: VectorStore;
  /** Called after the status tiddler changed (the server edition pushes it to pages). */
  onStatus?(): void;
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
  random?(): number;
  now?(): number;
}

type State = 'off' | 'loading' | 'building' | 'ready' | 'waiting' | 'error';

export class SemanticIndexer implements SemanticPort {
  private index: VectorIndex | undefined;
  private model: EmbeddingModel | undefined;
  private config = '';
  private pending = new Set<string>();
  private total = 0;
  private state: State = 'off';
  private error = '';
  private note = '';
  private run: AbortController | undefined;
  private working: Promise<void> | undefined;
  private dirty = false;
  private lastSave = 0;
  private readonly now: () => number;

  constructor(private readonly host: IndexerHost) {
    ensureWebGlobals();
    this.now = host.now ?? Date.now;
  }

  /** Read the settings and start, stop or go on accordingly (at startup, and when they change). */
  configure(): void {
    const { model, key, problem } = this.readConfig();
    const config = `${key}\u0000${problem}`;
    if (config === this.config) return;
    this.stop();
    this.config = config;
    this.model = model;
    this.error = problem;
    this.index = undefined;
    this.pending.clear();
    if (!model) {
      this.setState('off');
      return;
    }
    this.working = this.work(new AbortController());
  }

  /** Tiddlers changed (TiddlyWiki's change event): embed again or drop what differs. */
  changed(titles: string[]): void {
    if (titles.some((t) => t === SEMANTIC_PROFILE || t === SEMANTIC_ENABLED || this.isProfile(t))) this.configure();
    if (!this.index || !this.model) return;
    for (const title of titles) {
      const fp = this.fingerprintOf(title);
      if (fp === undefined) {
        this.pending.delete(title);
        if (this.index.delete(title)) this.dirty = true;
      } else if (fp !== this.index.fingerprintOf(title)) this.pending.add(title);
    }
    this.total = this.index.size + this.pending.size;
    if (this.pending.size && this.state === 'ready') this.working = this.work(new AbortController());
    else if (this.dirty && this.state === 'ready') void this.save();
    this.writeStatus();
  }

  /** Stop embedding (Cancel, or the wiki going away); what is done is saved. */
  stop(): void {
    this.run?.abort();
    this.run = undefined;
  }

  /** Resolves when the current run has finished (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.working) {
      const w = this.working;
      await w;
      if (this.working === w) this.working = undefined;
    }
  }

  async search(query: string, limit: number, signal: AbortSignal, accept?: (title: string) => boolean): Promise<SemanticAnswer> {
    if (!this.model)
      return {
        unavailable: this.error
          ? `Semantic search is off: ${this.error}`
          : 'No embedding model is set (Settings → TiddlyAgent → Semantic search), so there is no search by meaning.',
      };
    if (this.state === 'error') return { unavailable: `The semantic index stopped on an error: ${this.error}` };
    if (!this.index || this.state !== 'ready') return { unavailable: `The semantic index is not ready yet (${this.progress()}).` };
    try {
      const [vector] = await this.embed([query], signal, 2);
      if (vector!.length !== this.index.dims)
        return { unavailable: `The embedding model returned a query vector of ${vector!.length} dimensions; the index has ${this.index.dims}.` };
      return { hits: this.index.search(vector!, limit, accept) };
    } catch (e) {
      return { unavailable: `The query could not be embedded: ${(e as Error).message}` };
    }
  }

  /** For the bench and the settings: tiddlers indexed and bytes of vectors held. */
  stats(): { tiddlers: number; bytes: number; dims: number } {
    return { tiddlers: this.index?.size ?? 0, bytes: this.index?.bytes ?? 0, dims: this.index?.dims ?? 0 };
  }

  // ---- the background run -----------------------------------------------------------------

  private async work(run: AbortController): Promise<void> {
    this.run = run;
    const { signal } = run;
    const model = this.model!;
    try {
      if (!this.index) {
        this.setState('loading');
        await this.loadIndex(model.model);
        if (signal.aborted) return;
      }
      this.setState('building');
      while (this.pending.size && !signal.aborted) {
        await this.embedBatch(signal);
        if (this.now() - this.lastSave >= SAVE_EVERY_MS) await this.save();
      }
      if (signal.aborted) return;
      await this.save();
      this.setState('ready');
    } catch (e) {
      if (signal.aborted) return;
      this.error = (e as Error).message;
      this.setState('error');
    } finally {
      if (this.dirty) await this.save().catch(() => undefined);
      if (this.run === run) this.run = undefined;
    }
  }

  /** The stored index if it can be trusted, else an empty one; then what is left to embed. */
  private async loadIndex(model: string): Promise<void> {
    this.note = '';
    let blob: Uint8Array | undefined;
    try {
      blob = await this.host.store.load();
    } catch (e) {
      this.note = `The stored index could not be read (${(e as Error).message}); it is built again.`;
    }
    if (blob) {
      const loaded = VectorIndex.load(blob, model);
      if ('index' in loaded) this.index = loaded.index;
      else this.note = `The stored index was not used (${loaded.problem}); it is built again.`;
    }
    const candidates = this.candidates();
    if (this.index) {
      for (const title of [...this.index.titles()]) {
        if (!candidates.has(title) && this.index.delete(title)) this.dirty = true;
      }
    }
    for (const [title, fp] of candidates) if (this.index?.fingerprintOf(title) !== fp) this.pending.add(title);
    this.total = candidates.size;
  }

  private async embedBatch(signal: AbortSignal): Promise<void> {
    const titles: string[] = [];
    const texts: string[] = [];
    const counts: number[] = [];
    const prints: string[] = [];
    for (const title of this.pending) {
      const fields = this.visibleFields(title);
      if (!fields) {
        this.pending.delete(title);
        continue;
      }
      const chunks = isPdfTiddler(fields) ? await this.pdfChunks(title) : chunkTiddler(title, fields.text ?? '');
      if (titles.length && texts.length + chunks.length > BATCH_CHUNKS) break;
      titles.push(title);
      texts.push(...chunks);
      counts.push(chunks.length);
      prints.push(fingerprint(title, fields.text ?? ''));
    }
    if (!titles.length) return;
    const vectors = await this.embed(texts, signal, RETRIES);
    if (signal.aborted) return;
    const dims = vectors[0]!.length;
    this.index ??= new VectorIndex(this.model!.model, dims);
    if (dims !== this.index.dims) {
      throw new Error(
        `The embedding model "${this.model!.model}" returned vectors of ${dims} dimensions, but the index holds ${this.index.dims}. If the model changed, pick it again in the settings to rebuild.`,
      );
    }
    let at = 0;
    titles.forEach((title, i) => {
      this.index!.set(title, prints[i]!, vectors.slice(at, at + counts[i]!));
      at += counts[i]!;
      this.pending.delete(title);
    });
    this.dirty = true;
    this.writeStatus();
  }

  /** One embedding request, retried with backoff on rate limits and server errors. */
  private async embed(texts: string[], signal: AbortSignal, retries: number): Promise<Float32Array[]> {
    const schedule = { baseDelayMs: 1000, maxDelayMs: 30_000, maxRetryAfterMs: 60_000, random: this.host.random ?? Math.random };
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.model!.embed(texts, signal);
      } catch (e) {
        if (!isProviderError(e) || signal.aborted) throw e;
        const delay = attempt <= retries ? retryDelay(e, attempt, schedule) : undefined;
        if (delay === undefined) throw e;
        if (this.state === 'building') this.setState('waiting', `${e.message} Trying again in ${Math.ceil(delay / 1000)} s.`);
        await (this.host.sleep ?? defaultSleep)(delay, signal);
        if (signal.aborted) throw new ProviderError({ kind: 'aborted', message: 'Stopped.' });
        if (this.state === 'waiting') this.setState('building');
      }
    }
  }

  private async save(): Promise<void> {
    if (!this.index || !this.dirty) return;
    this.dirty = false;
    this.lastSave = this.now();
    await this.host.store.save(this.index.serialize());
  }

  // ---- what is embedded -------------------------------------------------------------------

  /** Every tiddler that belongs in the index, with the fingerprint of its title and text. */
  private candidates(): Map<string, string> {
    const out = new Map<string, string>();
    for (const title of this.host.wiki.filter('[all[tiddlers]!is[system]!has[draft.of]]')) {
      const fp = this.fingerprintOf(title);
      if (fp !== undefined) out.set(title, fp);
    }
    return out;
  }

  private visibleFields(title: string) {
    if (title.startsWith('$:/')) return undefined;
    const fields = this.host.wiki.getFields(title);
    if (!fields || fields['draft.of'] !== undefined || isHiddenFromAgent(title, fields)) return undefined;
    return isBinaryType(fields.type) && !isPdfTiddler(fields) ? undefined : fields;
  }

  /** A PDF's pieces, page by page (tools/documents.ts), each after its title; its title alone when it has no text. */
  private async pdfChunks(title: string): Promise<string[]> {
    const pdf = await this.host.wiki.documentText?.(title);
    const chunks = pdf && 'pages' in pdf ? pdfChunks(pdf.pages) : [];
    return chunks.length ? chunks.map((chunk) => `${title}\n\n${chunk.text}`) : [title];
  }

  private fingerprintOf(title: string): string | undefined {
    const fields = this.visibleFields(title);
    return fields ? fingerprint(title, fields.text ?? '') : undefined;
  }

  // ---- settings and status ----------------------------------------------------------------

  private isProfile(title: string): boolean {
    return title === configValue(this.host.wiki, SEMANTIC_PROFILE);
  }

  private readConfig(): { model?: EmbeddingModel; key: string; problem: string } {
    const wiki = this.host.wiki;
    if (configValue(wiki, SEMANTIC_ENABLED) !== 'yes') return { key: 'off', problem: '' };
    // Start stamps `started`: pressing it again after an error tries again.
    const started = wiki.getFields(SEMANTIC_ENABLED)?.started ?? '';
    const title = configValue(wiki, SEMANTIC_PROFILE);
    if (!title) return { key: 'none', problem: 'no provider profile is chosen for embeddings.' };
    let profile: ProviderProfile;
    try {
      profile = new ChatStore(wiki).readProvider(title);
    } catch (e) {
      return { key: title, problem: (e as Error).message };
    }
    const model = profile['embedding-model'];
    if (!model) return { key: title, problem: `the provider profile "${title}" names no embedding-model.` };
    let apiKey: string | undefined;
    try {
      apiKey = profileApiKey(profile, this.host);
    } catch (e) {
      return { key: title, problem: (e as Error).message };
    }
    const key = [title, profile.api, profile['base-url'], model, profile['api-key-name']?.trim(), started].join('\u0000');
    try {
      return {
        key,
        problem: '',
        model: createEmbeddingModel(profile.api, {
          baseUrl: profile['base-url'],
          apiKey,
          model,
          fetch: this.host.fetch,
          timeoutMs: (profile.timeout ?? 60) * 1000,
        }),
      };
    } catch (e) {
      return { key, problem: (e as Error).message };
    }
  }

  private progress(): string {
    const done = Math.max(0, this.total - this.pending.size);
    return `${done.toLocaleString('en')} of ${this.total.toLocaleString('en')} tiddlers embedded`;
  }

  private setState(state: State, message = ''): void {
    this.state = state;
    if (state === 'waiting') this.note = message;
    this.writeStatus();
  }

  private writeStatus(): void {
    const done = Math.max(0, this.total - this.pending.size);
    const fields: Record<string, string> = {
      title: SEMANTIC_STATUS,
      state: this.state,
      done: String(done),
      total: String(this.total),
      progress: this.progress(),
      model: this.model?.model ?? '',
      where: this.host.store.where,
      error: this.state === 'error' || (this.state === 'off' && this.error) ? this.error : '',
      note: this.note,
      text: '',
    };
    const old = this.host.wiki.getFields(SEMANTIC_STATUS);
    // Never switched on: no status tiddler at all (nothing to show, nothing written at startup).
    if (!old && this.state === 'off' && !this.error) return;
    if (old && Object.keys(fields).every((k) => (old[k] ?? '') === fields[k])) return;
    this.host.wiki.putTiddler(fields);
    this.host.onStatus?.();
  }
}

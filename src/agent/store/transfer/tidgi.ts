/*\
Import TidGi agent templates (tiddlers tagged $:/tags/AI/Template: `text` is the JSON
agentFrameworkConfig {prompts, response, plugins}; fields caption, description,
agentFrameworkID, ai_api_config and agent_tools) as agent definitions ($:/tags/AI/Agent).

A template is untrusted: the definition made is a plain wikitext tiddler with one tag and
only the fields below; its prompt is kept verbatim (`\rules only` with no rules, so a
transclusion or widget in it is text, never rendered); its tools are the TidGi tools it
enables that we have, and never more than the user's ceiling; approvals, write filter,
engine plugins and spawnable agents are left at their safe defaults.
\*/
import { AGENT_TAG } from '../schemas';
import { freeTitle, ImportError, plainWords, tagsOf, type ImportPlan, type ImportTarget } from './plan';
import type { TiddlerFields } from '../wiki-port';

export const TEMPLATE_TAG = '$:/tags/AI/Template';
/** Where imported definitions live (not under $:/ai/: the agent's own view renders its prompt, and that view hides $:/ai/). */
export const IMPORTED_AGENT_PREFIX = '$:/agents/';
/** The only agent framework TidGi has; a template naming another cannot be understood. */
const FRAMEWORKS = ['basicPromptConcatHandler'];
/** TidGi tool ids (plugins[].toolId) → our tools. */
const TOOLS: Record<string, string[]> = {
  wikiSearch: ['wiki-search'],
  wikiOperation: ['wiki-create', 'wiki-update', 'wiki-delete'],
  editTiddler: ['wiki-edit'],
  backlinks: ['wiki-backlinks'],
  toc: ['wiki-toc'],
  recent: ['wiki-recent'],
  listTiddlers: ['wiki-list'],
  getErrors: ['wiki-get-errors'],
  summary: ['summary'],
  askQuestion: ['ask-question'],
  todo: ['manage-todo'],
  webFetch: ['web-fetch'],
  spawnAgent: ['spawn-agent'],
  alarmClock: ['alarm-clock', 'schedule-task', 'list-schedules', 'remove-schedule'],
  editAgentDefinition: ['edit-agent-definition'],
};
/** Prompt plumbing our engine does itself (history, the workspace list): nothing to map. */
const BUILT_IN = ['fullReplacement', 'workspacesList'];

interface Prompt {
  text?: unknown;
  role?: unknown;
  enabled?: unknown;
  children?: unknown;
}

export function isTemplate(fields: Record<string, unknown>): boolean {
  return tagsOf(fields).includes(TEMPLATE_TAG);
}

/** The system prompt: each enabled system (or role-less) node's text followed by its children's, as TidGi flattens it. */
function systemPrompt(prompts: unknown, notMapped: Set<string>): string {
  const parts: string[] = [];
  const flatten = (node: Prompt): string => {
    if (node.enabled === false) return '';
    let text = typeof node.text === 'string' ? node.text : '';
    for (const child of Array.isArray(node.children) ? (node.children as Prompt[]) : []) {
      if (!child || typeof child !== 'object') continue;
      if (child.role === undefined || child.role === 'system') text += flatten(child);
      else if (child.enabled !== false && child.text) notMapped.add(`prompts with role "${String(child.role)}"`);
    }
    return text;
  };
  for (const node of Array.isArray(prompts) ? (prompts as Prompt[]) : []) {
    if (!node || typeof node !== 'object') continue;
    if (node.role === undefined || node.role === 'system') {
      const text = flatten(node).trim();
      if (text) parts.push(text);
    } else if (node.enabled !== false && node.text) notMapped.add(`prompts with role "${String(node.role)}"`);
  }
  return parts.join('\n\n');
}

function json(value: string | undefined, what: string): unknown {
  if (value === undefined || value.trim() === '') return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new ImportError(`${what} is not JSON.`);
  }
}

export function planTidGi(templates: TiddlerFields[], target: ImportTarget): ImportPlan {
  const notMapped = new Set<string>();
  const tiddlers: TiddlerFields[] = [];
  const used = new Set<string>();
  for (const t of templates) {
    const which = `The template "${t.title}"`;
    const framework = t.agentFrameworkID?.trim();
    if (framework && !FRAMEWORKS.includes(framework))
      throw new ImportError(
        `${which} uses the agent framework (handler) "${framework}", which TiddlyAgent does not know (it knows: ${FRAMEWORKS.join(', ')}). Nothing was imported.`,
      );
    const config = json(t.text, `${which}: its text (the agentFrameworkConfig)`);
    if (!config || typeof config !== 'object' || Array.isArray(config))
      throw new ImportError(`${which} has no agentFrameworkConfig: its text must be a JSON object with "prompts".`);
    const { prompts, plugins } = config as { prompts?: unknown; plugins?: unknown };
    if (!Array.isArray(prompts)) throw new ImportError(`${which} has no "prompts" list in its agentFrameworkConfig.`);
    const tools = new Set<string>();
    for (const p of Array.isArray(plugins) ? (plugins as Record<string, unknown>[]) : []) {
      if (!p || typeof p !== 'object' || p.enabled === false) continue;
      const id = typeof p.toolId === 'string' ? p.toolId : String(p.toolId);
      if (BUILT_IN.includes(id)) continue;
      const ours = TOOLS[id];
      if (!ours) notMapped.add(`tool "${id}" (no TiddlyAgent tool does this)`);
      for (const tool of ours ?? []) {
        if (target.toolCeiling.includes(tool)) tools.add(tool);
        else notMapped.add(`tool "${tool}" (beyond the tools you allow imported agents)`);
      }
    }
    const prompt = systemPrompt(prompts, notMapped);
    const caption = plainWords(t.caption || t.title || '').slice(0, 100) || 'Imported agent';
    const title = freeTitle(caption, target, used, IMPORTED_AGENT_PREFIX);
    const agent: TiddlerFields = {
      title,
      tags: AGENT_TAG,
      type: 'text/vnd.tiddlywiki',
      caption,
      'agent-provider': target.provider,
      'agent-tools': [...tools].join(' '),
      'agent-tool-protocol': 'native',
      created: target.now,
      modified: target.now,
      // Inline mode keeps blank lines; `\rules only` with no rule names turns every wikitext
      // rule off (pragmas included), so the prompt is read as written.
      text: `\\parsermode inline\n\\rules only\n${prompt}`,
    };
    if (t.description) agent.description = plainWords(t.description).slice(0, 500);
    const api = json(t.ai_api_config, `${which}: its ai_api_config`) as
      | { default?: { provider?: unknown; model?: unknown }; modelParameters?: { temperature?: unknown } }
      | undefined;
    if (typeof api?.default?.model === 'string' && api.default.model.trim()) agent['agent-model'] = api.default.model.trim().slice(0, 200);
    if (typeof api?.default?.provider === 'string') notMapped.add(`provider "${api.default.provider}" (imported agents use "${target.provider}")`);
    const temperature = api?.modelParameters?.temperature;
    if (typeof temperature === 'number' && temperature >= 0 && temperature <= 2) agent['agent-temperature'] = String(temperature);
    tiddlers.push(agent);
  }
  if (!tiddlers.length) throw new ImportError(`The file holds no TidGi agent template (a tiddler tagged ${TEMPLATE_TAG}).`);
  return { format: 'tidgi', tiddlers, created: tiddlers.map((t) => t.title!), notMapped: [...notMapped] };
}

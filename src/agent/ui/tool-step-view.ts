/*\
A tool call in the chat as a person reads it (tool-step.ts finds the words): one plain line
saying what the call did, the tiddlers it found as links after it, and the exact arguments
and result one click away, in a fold: the arguments as indented JSON, the result as plain
text, a long one cut with "Show all" (nothing in the chat scrolls inside itself). Titles are
data: rendered as TiddlyWiki links with text children, never parsed as wikitext. The fold is
filled when it is first opened, so a long chat's tool calls cost only their line.
\*/
import type { IParseTreeNode } from 'tiddlywiki';
import { el, type ChatContext, type RenderedTree } from './chat-context';
import { prettyJson } from './cards';
import { cutText, readableResult, toolStep, type StepPart } from './tool-step';
import { toolOutcome } from './tool-outcome';

/** The tag of the wiki's MCP server tiddlers, whose `name` the MCP tools' names start with. */
const MCP_SERVER_TAG = '$:/tags/AI/MCPServer';

/** The call's line (and, once it has a result, its fold) into `body`. */
export function renderToolStep(ctx: ChatContext, fields: Record<string, unknown>, body: HTMLElement): RenderedTree {
  const name = String(fields['tool-name'] ?? '');
  const status = String(fields['tool-status'] ?? '');
  const args = String(fields['tool-args'] ?? '{}');
  const result = String(fields.text ?? '');
  const found = Number(fields['tool-found']);
  const step = toolStep(
    {
      name,
      status,
      args,
      result,
      titles: fields['tool-titles'] === undefined ? undefined : ($tw.utils.parseStringArray(String(fields['tool-titles'])) ?? []),
      found: fields['tool-found'] === undefined || !Number.isFinite(found) ? undefined : found,
      approval: typeof fields.approval === 'string' ? fields.approval : undefined,
      outcome: toolOutcome(fields),
      mcpServers: name.startsWith('mcp-') ? ctx.filter(`[all[shadows+tiddlers]tag[${MCP_SERVER_TAG}]get[name]]`, {}) : undefined,
    },
    (key) => ctx.lingo(key),
  );
  const nodes: IParseTreeNode[] = step.line.map(partNode);
  if (step.titles.length) {
    const list: IParseTreeNode[] = [];
    // Marks that read the same in every language: a dash before the titles, a middle dot between them.
    step.titles.forEach((title, i) => {
      list.push(...(i ? [text(' · ')] : []), partNode({ title }));
    });
    if (step.more) list.push(text(` ${ctx.lingo('Step/More').replace('$count$', String(step.more))}`));
    nodes.push(text(' — '), element('span', 'tc-ai-tool-titles', list));
  }
  const line = el(ctx.document, 'div', 'tc-ai-tool-step');
  body.appendChild(line);
  const tree = ctx.renderTree(nodes, line);
  if (status !== 'pending') body.appendChild(details(ctx, args, result));
  return tree;
}

function text(value: string): IParseTreeNode {
  return { type: 'text', text: value } as IParseTreeNode;
}

function element(tag: string, className: string, children: IParseTreeNode[]): IParseTreeNode {
  return { type: 'element', tag, attributes: { class: { type: 'string', value: className } }, children } as unknown as IParseTreeNode;
}

function partNode(part: StepPart): IParseTreeNode {
  if ('title' in part)
    return { type: 'link', attributes: { to: { type: 'string', value: part.title } }, children: [text(part.title)] } as unknown as IParseTreeNode;
  if ('code' in part) return element('code', 'tc-ai-tool-code', [text(part.code)]);
  if ('value' in part) return element('span', 'tc-ai-tool-value', [text(part.value)]);
  if ('reason' in part) return element('span', 'tc-ai-tool-error', [text(part.reason)]);
  return text(part.text);
}

/** The fold with the exact arguments and the result, filled when first opened. */
function details(ctx: ChatContext, args: string, result: string): HTMLElement {
  const doc = ctx.document;
  const fold = el(doc, 'details', 'tc-ai-tool-details');
  fold.appendChild(el(doc, 'summary', '', ctx.lingo('ToolDetails')));
  const fill = () => {
    if (fold.childNodes.length > 1) return;
    fold.appendChild(el(doc, 'div', 'tc-ai-tool-label', ctx.lingo('Step/Arguments')));
    fold.appendChild(el(doc, 'pre', 'tc-ai-tool-args', prettyJson(args)));
    fold.appendChild(el(doc, 'div', 'tc-ai-tool-label', ctx.lingo('Step/Result')));
    const full = readableResult(result);
    const { text: start, cut } = cutText(full);
    const pre = el(doc, 'pre', 'tc-ai-tool-result', start);
    fold.appendChild(pre);
    if (!cut) return;
    const more = el(doc, 'button', 'tc-btn-invisible tc-ai-tool-show-all', ctx.lingo('Step/ShowAll').replace('$count$', String(full.length)));
    more.setAttribute('type', 'button');
    more.addEventListener('click', () => {
      pre.textContent = full;
      more.remove();
    });
    fold.appendChild(more);
  };
  if (ctx.browser) fold.addEventListener('toggle', () => (fold as HTMLDetailsElement).open && fill());
  else fill();
  return fold;
}

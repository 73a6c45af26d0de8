/*\
The bar of one message: Edit and Copy under a user's message (Edit opens the message's words
in a box; sending them forks the chat there), and the switch between the chat's versions
("‹ 2/3 ›") on the message where they fork (runner/services/branches.ts). Like the turn bar, it is
rebuilt only when what it shows changes, and every action is a request to the runner.
\*/
import { forkVersions, type ForkVersions } from '../store/branch-versions';
import { el, type ChatContext } from './chat-context';
import { attachedBar, type AttachedBar } from './message-view';
import type { ListedMessage } from './turn-actions';

export interface MessageBarSpec {
  title: string;
  role: string;
  seq: number;
  fork?: ForkVersions;
}

/** The versions at every fork of the chat the list shows (`all`: its messages in order). */
export function chatForks(ctx: ChatContext, all: readonly ListedMessage[]): Map<number, ForkVersions> {
  const parked = ctx.filter('[field:agent-branch-chat<chat>]', { chat: ctx.chat });
  if (!parked.length) return new Map();
  const read = (title: string) => ctx.wiki.getTiddler(title)?.fields as Record<string, unknown> | undefined;
  return forkVersions(ctx.chat, parked, read, (seq) => {
    const message = all.find((m) => m.seq === seq);
    return message ? read(message.title) : undefined;
  });
}

/** Which messages of the window carry a bar: every user message, and every message where the chat forks. */
export function messageBarSpec(message: ListedMessage, forks: Map<number, ForkVersions>): MessageBarSpec | undefined {
  const fork = forks.get(message.seq);
  if (message.role !== 'user' && !fork) return undefined;
  return { title: message.title, role: message.role, seq: message.seq, fork };
}

export function messageBarKey(spec: MessageBarSpec): string {
  return `${spec.role}|${spec.fork ? `${spec.fork.active}/${spec.fork.versions.join(',')}` : ''}`;
}

export function renderMessageBar(ctx: ChatContext, spec: MessageBarSpec, key: string): AttachedBar {
  const doc = ctx.document;
  const { chat } = ctx;
  const element = el(doc, 'div', 'tc-ai-message-actions');
  const button = (parent: HTMLElement, cls: string, label: string, action: string, onClick: () => void, name?: string) => {
    const b = el(doc, 'button', `tc-btn-invisible tc-ai-message-${cls}`, label);
    b.setAttribute('type', 'button');
    b.setAttribute('data-ai-action', action);
    if (name) b.setAttribute('aria-label', name);
    b.addEventListener('click', onClick);
    parent.appendChild(b);
    return b;
  };
  const text = () => String(ctx.wiki.getTiddler(spec.title)?.fields.text ?? '');
  if (spec.fork?.active !== undefined && spec.fork.versions.length > 1) element.appendChild(renderSwitch(ctx, spec.seq, spec.fork, button));
  if (spec.role === 'user') {
    const editor = el(doc, 'div', 'tc-ai-message-editor');
    const edit = button(element, 'edit', ctx.lingo('Message/Edit'), 'edit-message', () => {
      if (editor.firstChild) return;
      const box = el(doc, 'textarea', 'tc-ai-message-edit-box') as HTMLTextAreaElement;
      box.value = text();
      box.setAttribute('aria-label', ctx.lingo('Message/EditLabel'));
      box.rows = Math.min(10, box.value.split('\n').length + 1);
      const close = () => {
        editor.textContent = '';
        edit.removeAttribute('hidden');
        edit.focus();
      };
      editor.appendChild(box);
      button(editor, 'edit-send', ctx.lingo('Message/EditSend'), 'edit-send', () => {
        ctx.followReply();
        void ctx.request(ctx.runner().submit({ kind: 'edit', chat, message: spec.title, text: box.value })).then((result) => {
          if (result !== undefined) close();
        });
      });
      button(editor, 'edit-cancel', ctx.lingo('Question/Cancel'), 'edit-cancel', close);
      box.addEventListener('keydown', (event) => {
        if (event.key === 'Escape') close();
      });
      edit.setAttribute('hidden', '');
      box.focus();
    });
    button(element, 'copy', ctx.lingo('Copy/Message'), 'copy-message', () => $tw.utils.copyToClipboard(text()));
    element.appendChild(editor);
  }
  return attachedBar(element, key);
}

/** "‹ 2/3 ›": the previous and next version at this fork, and where the shown one stands. */
function renderSwitch(
  ctx: ChatContext,
  at: number,
  fork: ForkVersions,
  button: (parent: HTMLElement, cls: string, label: string, action: string, onClick: () => void, name?: string) => HTMLElement,
): HTMLElement {
  const doc = ctx.document;
  const group = el(doc, 'span', 'tc-ai-branch-switch');
  group.setAttribute('role', 'group');
  group.setAttribute('aria-label', ctx.lingo('Branch/Versions'));
  const index = fork.versions.indexOf(fork.active!);
  const go = (to: number) => () => void ctx.request(ctx.runner().submit({ kind: 'switch-branch', chat: ctx.chat, at, version: fork.versions[to]! }));
  const prev = button(group, 'branch-prev', '‹', 'branch-previous', go(index - 1), ctx.lingo('Branch/Previous'));
  const position = `${index + 1}/${fork.versions.length}`;
  const label = el(doc, 'span', 'tc-ai-branch-position', position);
  label.setAttribute(
    'title',
    ctx
      .lingo('Branch/Position')
      .replace('$position$', String(index + 1))
      .replace('$count$', String(fork.versions.length)),
  );
  group.appendChild(label);
  const next = button(group, 'branch-next', '›', 'branch-next', go(index + 1), ctx.lingo('Branch/Next'));
  if (index <= 0) prev.setAttribute('disabled', '');
  if (index >= fork.versions.length - 1) next.setAttribute('disabled', '');
  return group;
}

/*\
The settings' forms for an agent's rules, a library module of their own: the widget that shows
them (ui/agent-rules-widget.ts) requires it when a form is first drawn, so a page that never
opens the agent settings does not compile them.
\*/
export { approvalForm } from './approval-form';
export { limitsForm } from './limits-form';
export { wikiTitles } from './pattern-matches';

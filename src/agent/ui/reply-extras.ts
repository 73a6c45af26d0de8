/*\
What a reply may show under its text beyond the reply itself: its sources (ui/reply-sources.ts)
and the memories it was given (ui/memory-view.ts). A library module the message view requires
only for a reply that has either, so showing a chat without them does not compile them.
\*/
export { renderMemoriesUsed } from './memory-view';
export { ReplySources } from './reply-sources';

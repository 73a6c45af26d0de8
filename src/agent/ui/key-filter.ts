/*\
Filter operator `aikey`, for the settings' provider setup: of the key names given, those with a
key in this browser's password store (TiddlyWiki's, in localStorage; never a tiddler). Under
Node, or in the server edition, none: there the server's environment holds the keys.
\*/

type Source = (iterator: (tiddler: unknown, title: string) => void) => void;

export function aikey(source: Source): string[] {
  const out: string[] = [];
  source((_tiddler, name) => {
    if ($tw.browser && name && $tw.utils.getPassword(name)) out.push(name);
  });
  return out;
}

module.exports = async function globalTeardown() {
  await globalThis.__TIDDLYAGENT_BROWSER__?.close();
};

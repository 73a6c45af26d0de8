// Runs once before all jest projects: build the plugins (so every test exercises the shipped
// artifacts) and, when browser tests are part of the run, start one Chromium that every e2e
// test file connects to.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
// As root in a container, without background networking (this machine has no network).
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

module.exports = async function globalSetup(config) {
  execFileSync(process.execPath, [path.join(__dirname, '../../scripts/build.mjs'), '--quiet'], { stdio: 'inherit' });
  const e2eSelected = config.selectProjects ? config.selectProjects.includes('e2e') : true;
  if (!e2eSelected) return;
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install chromium) or set CHROMIUM_PATH`);
  const { chromium } = require('playwright-core');
  const server = await chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  globalThis.__TIDDLYAGENT_BROWSER__ = server;
  process.env.TIDDLYAGENT_BROWSER_WS = server.wsEndpoint();
};

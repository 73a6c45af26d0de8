// The tests' owner configuration (the manual's "Who may do what"): the test doubles (mock LLM, capture
// servers, MCP test servers over HTTP) listen on loopback, which a server reaches only where its
// owner allows it. Tests that check the rules themselves set TIDDLYAGENT_CONFIG of their own.
process.env.TIDDLYAGENT_CONFIG ??= JSON.stringify({ allowHosts: ['127.0.0.1', 'localhost'] });

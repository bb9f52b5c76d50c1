// A loopback MCP server over streamable HTTP (the official TypeScript SDK) with one tool, `echo`,
// which answers "echo: <text>". Stateless: each POST gets a server and a transport of its own,
// so the agent may connect as often as it likes. It records the MCP methods it was asked and
// the arguments of each `echo` call, for the check to compare with what the agent showed.
import { createServer } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const ECHO = {
  name: "echo",
  description: "Answers the text it is given.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};

function echoServer(seen) {
  const server = new Server({ name: "echo", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => {
    seen.methods.push("tools/list");
    return { tools: [ECHO] };
  });
  server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
    seen.methods.push("tools/call");
    if (params.name !== "echo") {
      return { isError: true, content: [{ type: "text", text: `no tool ${params.name}` }] };
    }
    seen.calls.push(params.arguments);
    return { content: [{ type: "text", text: `echo: ${params.arguments?.text}` }] };
  });
  return server;
}

/** Starts the server on 127.0.0.1 (a free port); resolves to {url, seen, close}. */
export async function startEchoServer() {
  const seen = { methods: [], calls: [] };
  const http = createServer(async (req, res) => {
    if (req.method !== "POST") {  // no standalone SSE stream and no sessions to end: stateless
      res.writeHead(405, { Allow: "POST" }).end();
      return;
    }
    const server = echoServer(seen);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => { transport.close(); server.close(); });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (error) {
      console.error("echo MCP server:", error);
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  await new Promise((ready) => http.listen(0, "127.0.0.1", ready));
  const { port } = http.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    close: () => new Promise((done) => { http.closeAllConnections(); http.close(done); }),
  };
}

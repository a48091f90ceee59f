#!/usr/bin/env node
// The task tools' names and shapes as an MCP stdio server that records nothing (for recording a CLI's own
// transcripts, scripts/record-claude-transcripts.ts): every call answers "recorded".
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const s = new McpServer({ name: "task", version: "stub" });
const any = { summary: z.string().optional(), note: z.string().optional(), result: z.any().optional() };
for (const name of ["kanban_show", "kanban_heartbeat", "kanban_comment", "kanban_complete", "kanban_block"])
  s.tool(name, `the task tool ${name} (a recording stub)`, any, async () => ({ content: [{ type: "text", text: "recorded" }] }));
await s.connect(new StdioServerTransport());

/**
 * The MCP server (Streamable HTTP and SSE under /mcp, behind the same access tokens as the API): acceltriage's
 * read-only view of the fleet as tools for other agents. Nothing served here acts on the cluster.
 */
package io.acceltriage.mcp;

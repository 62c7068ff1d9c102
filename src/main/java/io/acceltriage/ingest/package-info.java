/**
 * Stage 1, ingest: the Alertmanager webhook only — payload parsing and validation, its token, durable acceptance into the incident inbox.
 */
package io.acceltriage.ingest;

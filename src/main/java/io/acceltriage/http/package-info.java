/**
 * The HTTP edge shared by ingest, web, chat and access: the JSON error body, bad-request mapping, RFC 3339 query times.
 */
package io.acceltriage.http;

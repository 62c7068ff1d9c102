/**
 * The REST API and the review pages (incidents, an incident's timeline, audit search, the fleet and the breaker).
 */
package io.acceltriage.web;

/**
 * Who may use the API and the pages: tokens, roles, signed session cookies, the access filter, audited refusals.
 */
package io.acceltriage.access;

/**
 * Microsoft Teams: the outgoing webhook (HMAC), Adaptive Cards to a Workflows webhook, signed approval links, settings.
 */
package io.acceltriage.chat.teams;

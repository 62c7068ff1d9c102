/**
 * Slack: signed inbound requests (events, /triage, buttons), chat.postMessage outbound, Block Kit messages, settings.
 */
package io.acceltriage.chat.slack;

/**
 * Chat: the conversation (one parser, one dispatch for Slack and Teams) split by command family; chat.slack and chat.teams each hold their integration's inbound, outbound and settings.
 */
package io.acceltriage.chat;

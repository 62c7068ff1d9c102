/**
 * Stage 9, notify: escalations and the incident messages people read; delivery with retries. The Slack and Teams notifiers live in chat.
 */
package io.acceltriage.notify;

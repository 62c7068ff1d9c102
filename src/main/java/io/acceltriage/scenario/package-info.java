/**
 * Scenarios: the format's loader, offline replay through the same responder as production (eval), its scoring, and capture of a live cluster into a scenario.
 */
package io.acceltriage.scenario;

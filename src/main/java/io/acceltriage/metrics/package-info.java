/**
 * The service's own metrics in Prometheus text format.
 */
package io.acceltriage.metrics;

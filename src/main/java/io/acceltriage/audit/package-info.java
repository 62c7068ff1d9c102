/**
 * The hash-chained audit log: append, read, verify, prune behind a checkpoint.
 */
package io.acceltriage.audit;

/**
 * Stage 5, diagnosis: the deterministic classifier of failure families and its knowledge (XID catalogue, cluster signals); no model, no I/O.
 */
package io.acceltriage.diagnosis;

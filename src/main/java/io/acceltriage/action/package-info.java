/**
 * Stage 8, action: the executor (recorded before and after, idempotent, verified, dry-run), one class per mitigation, leader election among replicas, approvals, and the actions table.
 */
package io.acceltriage.action;

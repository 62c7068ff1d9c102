/**
 * The sandbox: a simulated GPU cluster for the embedded default and for scenario replay.
 *
 * <ul>
 * <li>{@link io.acceltriage.sandbox.SimulatedApiServer} — a Kubernetes API in process (fabric8 mock server in
 * CRUD mode) that keeps status on create and adds pod logs, evictions under PodDisruptionBudgets, full label
 * and field selectors on lists, strategic-merge patches, and the JobSet, PyTorchJob, LeaderWorkerSet and
 * ResourceSlice kinds.</li>
 * <li>{@link io.acceltriage.sandbox.SimulatedCluster} — that API seeded with the fleet of
 * {@code sandbox/fleet.yaml}, per-device state rendered as dcgm-exporter (or Cloud TPU) text, the
 * {@link io.acceltriage.sandbox.FaultInjector} whose effects come from {@code sandbox/xid-effects.yaml} and
 * whose alerts from {@code sandbox/alert-rules.yaml}, and simulated controllers that replace deleted pods.</li>
 * <li>{@link io.acceltriage.sandbox.Sandbox} — the CDI bean that runs one in {@code acceltriage.cluster.mode}
 * {@code sandbox}, and {@link io.acceltriage.sandbox.SandboxResource}, its HTTP API, which delivers each
 * injected fault's alert to the service's own Alertmanager webhook.</li>
 * </ul>
 */
package io.acceltriage.sandbox;

/**
 * The cluster as the stages see it: the one owner-chain walker and gang kinds (Owners), correlation's read-only view (Membership), the nodes for pages and chat (Nodes), what policy must know (ClusterFacts, read by PoolCensus), and the connection handle (KubeApi). With evidence, action, sandbox and scenario, the only packages that speak fabric8.
 */
package io.acceltriage.cluster;

package io.acceltriage.cluster;

/** A node pool at decision time: how many accelerator nodes, how many already cordoned, how many other nodes still serve. */
public record PoolState(String pool, int nodes, int cordoned, int healthyOthers, boolean targetCordoned) {}

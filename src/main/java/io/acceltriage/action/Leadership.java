package io.acceltriage.action;

/** Whether this replica may change the cluster now. Only the lease holder acts; the others plan. */
public interface Leadership {

    boolean isLeader();

    /** A single replica (the sandbox, tests): always the actor. */
    Leadership ALWAYS = () -> true;
}
